"""Simplified Chinese (facts §1.3: composer, Send and Stop; the rest unseen)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("输入提示", "问问 Gemini"),
    "send": ("发送消息", "发送"),
    "stop": ("停止生成",),
    "tools": ("上传和工具",),  # unseen
    "upload_entry": ("上传文件。文档、数据、代码文件", "上传文件"),  # unseen
    "retry": ("重试",),  # unseen
    "sign_in": ("登录",),  # unseen
    "current_mode": ("当前为",),  # unseen
    "mode_fast": ("快速",),  # unseen
    "mode_thinking": ("思考",),  # unseen (the simulator leaves it English)
    "mode_pro": ("Pro", "专业"),  # unseen
    "dismiss": ("以后再说", "暂不", "不用了", "关闭", "知道了", "跳过"),  # unseen
    "forbidden": ("试用", "升级", "购买", "订阅", "全部接受", "接受", "同意", "取消"),  # unseen
}
