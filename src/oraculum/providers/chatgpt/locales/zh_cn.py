"""Simplified Chinese (zh-CN; source A and oracle's Chinese fixes, issue #33, PR #428)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("与 ChatGPT 聊天", "有问题，尽管问", "问问 ChatGPT"),
    "send": ("发送提示", "发送", "发送消息"),
    "stop": ("停止回答", "停止生成", "停止"),  # unseen
    "add_files": ("添加文件等",),
    "upload_entry": ("添加照片和文件",),
    "copy": ("复制", "复制回复"),
    "retry": ("重试",),  # unseen
    "close": ("关闭",),
    "dismiss": ("以后再说", "暂不", "不用了", "关闭", "知道了", "跳过"),  # unseen
    "forbidden": ("试用", "升级", "购买", "订阅", "全部接受", "接受", "同意"),  # unseen
    "upgrade": ("升级",),  # unseen
    "deep_research": ("深度研究",),
    "model_opener": ("模型选择器", "模型"),
    "configure": ("配置…", "配置..."),
    "thinking_effort": ("思考强度",),  # unseen
    "intelligence": ("智能",),  # unseen
    "show_advanced": ("显示高级选项",),  # unseen
    "power": ("强度",),  # unseen
    "Instant": ("极速",),
    "Light": ("轻",),
    "Standard": ("标准",),
    "Extended": ("扩展",),
    "Heavy": ("重度",),
    "Medium": ("均衡",),
    "High": ("高级",),
    "Extra High": ("超高", "极高"),
    "Pro": ("专业", "Pro"),
}  # fmt: skip
