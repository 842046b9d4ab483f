# scanid 网页应用，简体中文（与 en.ftl 一致）。

shell-loading = 正在加载…
shell-noscript = scanid 网页应用需要 JavaScript。你也可以下载应用：
shell-description = 你的 scanid 身份：注册，并通过扫描二维码批准登录。

language = 语言
back = 返回
cancel = 取消
done = 完成
go-home = 前往我的 scanid
unknown = 未知
details = 详细信息
offline = 无法连接到服务。你联网了吗？
failed = 出了点问题
insecure-title = scanid 需要安全连接
insecure-text = 请通过 https 打开此页面。scanid 应用使用浏览器的加密功能保管密钥，而该功能只在安全页面上可用。

welcome = 欢迎！你的 scanid 已就绪。
signup-title = 创建你的 scanid
signup-intro = 你的身份保存在这部手机上：密钥在这里生成，永不离开这部手机。
signup-name = 名称（你独有的用户名）
signup-name-hint = 3 到 32 个字符，可用 a–z、0–9、点、下划线、连字符。
display-name = 显示名称
signup-country = 国家/地区（两个字母，例如 CN）
signup-country-hint = ISO 3166-1 代码，大写。
signup-submit = 创建我的 scanid
signup-available = “{ $name }”可以使用。
signup-taken = “{ $name }”已被占用。请换一个名称。
signup-check = 请检查标出的字段。
signup-photo-failed = 你的身份已创建，但照片未能保存：{ $reason }
photo = 照片（相机或文件）
photo-hint = JPEG、PNG 或 WebP，最大 1 MB。可选。
photo-too-large = 这张照片超过 1 MB，请选一张更小的。
edit-title = 编辑资料
edit-save = 保存
edit-saved = 资料已保存。

home-title = 你的 scanid
home-identity = 你的身份
home-service-id = 服务 ID
home-how = 要在某处登录，请用手机相机扫描其登录页上的二维码。链接会在这里打开。
home-manage = 管理
home-activity = 最近登录
home-keys = 密钥和通行密钥
home-agents = 代表你行事的代理
home-rotate = 更换设备密钥
home-sign-out = 在所有地方退出登录
home-delete = 删除身份

keys-upgrade = 在这部手机上使用通行密钥
keys-add = 添加通行密钥
keys-upgrade-why = 使用通行密钥后，每次批准都需要你的指纹、面容或 PIN：拿着你已解锁手机的人也无法替你批准。你当前的密钥会把权限移交给通行密钥，然后停用。
keys-last-used = 上次使用：{ $when }
keys-last-used-from = 上次使用：{ $when }，来自 { $place }
keys-not-used = 尚未使用
keys-removed = 密钥已移除。
keys-remove = 移除
keys-remove-confirm = 确认移除
keys-remove-sign-out = 它已丢失或可能被复制：同时在所有地方退出登录
keys-last-key = 这是你的最后一个密钥：请先添加另一个再移除它。
keys-this-phone = （这部手机）
keys-passkey = 通行密钥
passkey-name = 这部手机
keys-passkey-level = 通过设备密钥添加：用它的登录与设备密钥的登录同等对待（没有指纹、面容或 PIN 级别）。
keys-device-key = 设备密钥
keys-device-key-note = 签名时不要求解锁

rotate-text = 将在这部手机上生成新密钥。旧密钥把权限移交给它，并立即失效。
rotate-also = 同时在所有地方退出登录
rotate-also-hint = 结束所有通过 scanid 进行的登录：每个应用和网站都会要求你重新登录。如果别人可能拿过你的手机，请选择此项。
rotate-confirm = 更换密钥
rotate-done = 新的设备密钥已生效；旧密钥不再可用。
rotate-done-everywhere = 新的设备密钥已生效；旧密钥不再可用，你已在所有地方退出登录。
sign-out-text = 在所有设备上结束所有通过 scanid 进行的登录：每个应用和网站都会收到通知，并要求你重新登录。你的密钥保持不变。
sign-out-lost = 手机或通行密钥丢失了，或者可能被复制了？请在“密钥和通行密钥”中移除它（那里也提供此操作），然后在所有地方退出登录。
signed-out = { $count ->
   *[other] 你已在所有地方退出登录：已结束 { $count } 个会话，每个应用和网站都会要求你重新登录。
}
delete-text = 这会在服务中删除你的 scanid 身份：你的资料和照片、你在各处的登录，以及这部手机上的密钥。你的名称将可供他人使用。此操作无法撤销。
delete-label = 输入你的名称（{ $name }）以确认
delete-mismatch = 请输入你的名称 { $name } 以确认。
delete-confirm = 删除我的身份
delete-done = 你的身份已删除。你可以创建一个新的。

activity-none = 还没有登录记录。
activity-approved = 已批准
activity-denied = 已拒绝
activity-refused = 被阻止（应用不允许）
activity-wrong-number = 已取消（选错了数字）
activity-second-device = 已取消（另一部手机扫描了它）
activity-sso = 已登录：无需扫描
activity-from = 来自 { $place } · { $browser }
activity-unknown-browser = 未知浏览器
activity-reported = 已报告为不是你本人。
activity-not-me = 这不是我
activity-ask = 要结束这次登录 { $client } 吗？它的访问权限会立即被撤销，并通知 { $client }。
activity-yes = 是，结束它
activity-done-session = 完成：已在 { $client } 结束那次登录，并撤销了它的访问权限。
activity-done-tokens = 完成：已撤销那次登录对 { $client } 的访问权限（其会话已经结束）。
activity-done-nothing = 已报告。没有找到那次登录需要结束的会话或访问权限。

place-unknown = 未知地址
place-network = 网络 { $network }
where-started-from = 发起位置
where-this-phone = 这部手机
where-asked-at = 请求时间
where-warning = 警告：
flag-location-mismatch = 它是在与这部手机所在国家不同的国家发起的。
flag-first-from-here = 你从未批准过来自该地点的登录。
flag-high-usage = 过去一小时内有大量针对你身份的登录请求。
where-refused = { $client } 不允许带有这些警告的登录：无法批准。
where-deny-it = 请拒绝。

scan-reading = 正在读取代码…
scan-expired = 此代码已过期
scan-gone = 该登录已不再等待，或者代码已过时。请重新扫描登录页上的代码。
scan-new = { $client } 请你用 scanid 登录。这部手机上还没有 scanid：请先创建一个，然后批准。
code-not-waiting = 此代码不在等待中
code-invalid = 代码无效、已过期或已被使用。请在设备上重新开始。

scope-openid = 你的 scanid 标识符（主体和服务 ID）
scope-profile = 你的用户名、显示名称、头像、资料的最后修改时间，以及你所属的群组
scope-groups = 你所属的群组
scope-address = 你的国家/地区
scope-offline-access = 在你不使用应用时的访问权限（离线访问）
login-title = 登录 { $client }？
connect-title = 连接 { $client }？
asks-for = { $client } 请求：
asks-for-at = { $host } 上的 { $client } 请求：
an-app = 一个应用
resources = 以及以你的身份访问：
self-registered = { $client } 是自行在此服务注册的：没有人核实过这个名称。
approve-as = 身份：{ $user } · 有效至 { $time }
agent = { $os } 上的 { $browser }
started-here = 在这部手机上发起。
started-elsewhere = 此登录是在另一台设备上发起的。
address = 地址
browser = 浏览器
approve-only-if = 只有当这次登录是你本人刚刚在面前的屏幕上发起的，才批准。如果是别人把这个代码发给你的，请拒绝。
device-check = 请确认设备显示的是这个代码：
device-address = 设备的地址
device-calls-itself = 设备的自称（未经核实）
device-notice = 设备代码是来自某台设备的请求。只有当你手里拿着这台设备（或它就在你面前）并且它显示这个代码时，才批准。没有人需要你批准他们发给你、念给你或让你输入的代码：如果你是这样拿到它的，请拒绝。
device-differ = 如果代码不同，请拒绝。
pick = 请选择登录屏幕上显示的数字：
pick-passkey = 然后手机会要求你用指纹、面容或屏幕锁来批准。
number-here = 在此浏览器中发起：它的登录页显示的是 { $number }。
arming = 此屏幕出现片刻后按钮才可用，以免误触而批准。
approve = 批准
deny = 拒绝
approved-title = 登录已批准
denied-title = 登录已拒绝
cancelled-title = 登录已取消
approved-text = 你正在登录 { $client }。请在你开始的屏幕上继续。
approved-device = { $client } 已连接。请在设备上继续。
denied-text = 已告知 { $client } 你拒绝了。
refused = { $client } 不允许此登录：{ $reason }。登录已取消。
not-waiting = 此登录已不再等待（已过期或已处理）。请重新扫描代码。

# The agents acting for the person (token exchange)
agents-text = 你允许在别处代表你行事的应用，权限不超过你给它们的范围。撤回后，它会立即停止代表你行事。
agents-none = 没有代理代表你行事。
agents-since = 于 { $when } 允许
agents-scopes = 可使用：{ $scopes }
agents-resources = 位于：{ $resources }
agents-withdraw = 撤回
agents-ask = 要让 { $client } 停止代表你行事吗？它代表你的访问会立即结束，下次登录时会再次询问你。
agents-withdrawn = 已撤回：{ $client } 不能再代表你行事。

# Requests waiting for the person (OpenID CIBA)
waiting-title = 等待你处理的请求
waiting-none = 没有等待你处理的请求。
waiting-open = 打开
waiting-asked = 请求于 { $time }
waiting-gone = 此请求已不再等待（已过期或已处理）。
binding-message = 请求方应向你展示完全相同的这条消息：
binding-none = 此请求没有可供核对的消息。
binding-check = 只有当你此刻正在与该应用打交道（通话中、收银台前、与你的代理一起）并且它向你展示的内容一致时，才批准。如果你没有预料到这个请求，请拒绝。
approve-agent = { $client } 是一个代理：如果你允许，它还可以在不超出此访问权限的范围内代表你行事，它使用的每个令牌都会注明它在代表你行事。你可以随时在 scanid 应用中撤回。

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = 通知
push-text = 当有人通过后台渠道找你时（呼叫中心、收银台或代理），在这部手机上收到通知。通知只说明有请求在等待。
push-is-on = 这部手机上的通知已开启。
push-is-off = 通知已关闭：打开应用即可查看等待中的请求。
push-turn-on = 开启通知
push-turn-off = 关闭通知
push-now-on = 通知已开启。
push-now-off = 通知已关闭。
push-blocked = 此应用的通知已被阻止。请在浏览器的网站设置中允许通知，然后重试。
push-notice-title = 有一个请求在等你
push-notice-body = 打开 scanid 查看是谁在请求，然后批准或拒绝。
