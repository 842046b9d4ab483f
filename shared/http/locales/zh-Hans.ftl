# scanid 登录页面（简体中文）。与 en.ftl 的消息和占位符相同。

## 每个页面

brand = scanid
language-label = 语言
language-change = 切换

## 登录页面（二维码）

qr-title = 登录
qr-heading = 登录 { $client }
qr-device-client = { $client }（代码 { $code }）
qr-scan = 请用 scanid 应用扫描此二维码登录。
qr-alt = 二维码。其中包含此链接：{ $link }
self-registered = { $client } 是自行在本服务注册的：没有人核实过这个名称。
qr-on-phone = 正在使用手机？
qr-open-app = 打开 scanid 应用
qr-waiting = 正在等待应用…
qr-passkey = 使用通行密钥登录
qr-no-app = 还没有应用？用手机相机扫描此二维码，即可打开 scanid 网页应用并在其中注册。
qr-web-app = 打开 scanid 网页应用
qr-get-app = 或者下载应用：
qr-pick = 请在 scanid 应用中选择 { $number }
qr-scanned-pick = 已扫描。请在手机上选择此处显示的数字。
qr-scanned = 已扫描。请在手机上确认…
qr-gone = 此登录请求已失效。
qr-expired = 此二维码已过期。
qr-restart = 重新开始
qr-wrong-number = 手机上选择的数字与此处显示的不一致。本次登录已取消。
qr-second-device = 另一部手机扫描了此二维码。本次登录已取消：如果不是你本人，可能有人转发了你的登录码。
qr-denied = 已拒绝。正在继续…
qr-approved = 已批准。正在继续…
passkey-waiting = 正在等待你的通行密钥…
passkey-signed-in = 已登录。正在继续…
passkey-failed = 通行密钥登录失败：{ $reason }。请重试，或扫描二维码。
passkey-cancelled = 已取消

## 授权页面

consent-title = 允许访问
consent-heading = { $client } 想要访问你的 scanid 账户
consent-logged-in-as = 当前登录身份：{ $name }（@{ $user }）
consent-will-receive = { $client } 将获得：
consent-resources = 以及以你的身份访问：
consent-deny = 拒绝
consent-allow = 允许
consent-sent-back = 你将被送回 { $host }。
consent-agent = { $client } 是一个代理：如果你允许，它还可以在不超出此访问权限的范围内代表你行事，它使用的每个令牌都会注明它在代表你行事。你可以随时在 scanid 应用中撤回。
scope-openid = 你的 scanid 标识符（主体和服务 ID）
scope-profile = 你的用户名、显示名称、头像、资料最近一次更改的时间，以及你所在的群组
scope-groups = 你所在的群组
scope-address = 你的国家/地区
scope-offline_access = 你不使用应用时的访问（离线访问）
scope-other = 其他数据
claim-name = 你的显示名称
claim-preferred_username = 你的用户名
claim-picture = 你的头像
claim-updated_at = 你的资料最近一次更改的时间

## 设备代码页面（RFC 8628）

device-title = 连接设备
device-enter = 请输入设备上显示的代码。
device-code = 代码
device-continue = 继续
device-on-phone = 正在使用装有 scanid 的手机？
device-approve-in-app = 在 scanid 应用中批准
device-then = 然后用 scanid 应用登录。只输入来自你本人正在设置的设备的代码。
device-not-from-page = 此代码不是从本页面提交的（由其他网站提交，或页面已过旧）。请在这里输入设备上显示的代码。
device-unknown-code = 此代码无效、已过期或已被使用。请核对设备上的代码，或在设备上重新开始。
device-connected = 设备已连接
device-connected-text = { $client } 现已连接到你的 scanid 账户。你可以关闭此窗口并回到设备。
device-refused = 设备未连接
device-refused-text = 你拒绝了 { $client }：设备未连接。你可以关闭此窗口。

## 登录（form_post）和退出

signing-in-title = 正在登录
signing-in = 正在为你登录…
continue = 继续
logout-title = 退出登录
logout-heading = 要退出 scanid 吗？
logout-button = 退出登录
logged-out-title = 已退出
logged-out-heading = 你已退出登录
logged-out-text = 你可以关闭此窗口。

## 错误页面

error-details = 详细信息：
error-request-invalid = 此登录请求无效
error-request-invalid-text = 该应用发送了 scanid 无法接受的登录请求。请返回应用重试；如果问题持续出现，请告知其开发者。
error-login-not-found = 找不到登录请求
error-login-not-found-text = 此登录请求不存在或已过期。请从应用重新开始。
error-wrong-browser = 浏览器不对
error-wrong-browser-text = 此登录只能在发起它的浏览器中完成。
error-expired = 登录请求已过期
error-expired-text = 此登录请求已过期。请从应用重新开始。
error-completed = 已完成
error-completed-text = 此登录请求已经完成。请从应用重新开始。
error-not-approved = 尚未批准
error-not-approved-text = 请先用 scanid 应用扫描二维码并批准登录。
error-unknown-app = 未知应用
error-unknown-app-text = 发起此登录的应用已不存在。
error-refused = 请求被拒绝
error-forged-text = 此表单不是从授权页面提交的。
error-no-choice = 请选择允许或拒绝
error-no-choice-text = 授权表单不完整。
error-logout-invalid = 无效的退出请求
error-logout-repeated-text = 有参数重复。
error-logout-invalid-text = scanid 无法处理此退出请求。
error-logout-refused-text = 此次退出未在 scanid 退出页面上确认。
error-failed = 出错了
error-failed-text = 请重试。
error-unavailable = 暂时无法使用
error-unavailable-text = scanid 现在无法完成这一步。请稍后重试。
error-rate-limited = 登录尝试次数过多
error-rate-limited-text = 请等待一分钟后重试。
