"""Vietnamese (facts §1.3-1.6)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Nhập câu lệnh cho Gemini",),
    "tools": ("Nội dung tải lên và công cụ",),
    "upload_entry": ("Tải tệp lên",),
    # "Mở công cụ chọn chế độ, hiện tại là Flash"
    "current_mode": ("hiện tại là",),
}
