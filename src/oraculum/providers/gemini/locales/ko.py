"""Korean (facts §1.3-1.6, from a published session log of the live page)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("여기에 프롬프트 입력",),
    "send": ("메시지 보내기",),
    "stop": ("대답 생성 중지",),
    "tools": ("파일 업로드 메뉴 열기", "도구"),
    "upload_entry": ("파일 업로드. 문서, 데이터, 코드 파일", "파일 업로드"),
    "mode_fast": ("빠른 모드",),
    "mode_thinking": ("사고 모드",),
    "mode_pro": ("Pro",),
}
