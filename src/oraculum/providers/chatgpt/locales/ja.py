"""Japanese (source A; tiers also from oracle PR #365, 2026-08-11)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("ChatGPT とチャットする",),
    "send": ("プロンプトを送信する", "送信"),
    "stop": ("回答を停止する", "停止"),  # unseen
    "add_files": ("ファイルの追加など",),
    "upload_entry": ("写真とファイルを追加",),
    "copy": ("コピーする", "回答をコピーする"),
    "retry": ("再試行",),  # unseen
    "close": ("閉じる",),
    "dismiss": ("今はしない", "後で", "閉じる", "了解しました", "スキップ"),  # unseen
    "forbidden": ("試してみる", "アップグレード", "購入", "すべて受け入れる", "同意する"),  # unseen
    "upgrade": ("アップグレード",),  # unseen
    "deep_research": ("Deep Research", "ディープリサーチ"),
    "model_opener": ("モデルセレクター", "モデル"),
    "configure": ("設定する",),
    "thinking_effort": ("思考量", "推論レベル"),
    "intelligence": ("インテリジェンス",),  # unseen
    "show_advanced": ("詳細表示にする",),
    "power": ("パワー",),  # unseen
    "Instant": ("最速",),
    "Medium": ("標準", "中程度"),
    "High": ("高", "高い"),
    "Extra High": ("最高", "非常に高い"),
    "Pro": ("Pro",),
}  # fmt: skip
