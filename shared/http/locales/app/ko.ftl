# scanid 웹 앱, 한국어 (en.ftl과 같은 메시지).

shell-loading = 불러오는 중…
shell-noscript = scanid 웹 앱을 사용하려면 JavaScript가 필요합니다. 앱을 받을 수도 있습니다:
shell-description = 나의 scanid 신원: 가입하고, QR 코드를 스캔해 로그인을 승인하세요.

language = 언어
back = 뒤로
cancel = 취소
done = 완료
go-home = 내 scanid로 가기
unknown = 알 수 없음
details = 자세히
offline = 서비스에 연결할 수 없습니다. 인터넷에 연결되어 있나요?
failed = 문제가 발생했습니다
insecure-title = scanid에는 보안 연결이 필요합니다
insecure-text = 이 페이지를 https로 여세요. scanid 앱은 브라우저의 암호화 기능으로 키를 보관하는데, 이 기능은 보안 페이지에서만 작동합니다.

welcome = 환영합니다! scanid가 준비되었습니다.
signup-title = scanid 만들기
signup-intro = 내 신원은 이 휴대폰에 있습니다. 키는 여기에서 만들어지며 절대 휴대폰 밖으로 나가지 않습니다.
signup-name = 이름(나만의 고유 핸들)
signup-name-hint = a–z, 0–9, 마침표, 밑줄, 하이픈으로 3~32자.
display-name = 표시 이름
signup-country = 국가(두 글자, 예: KR)
signup-country-hint = ISO 3166-1 코드, 대문자.
signup-submit = 내 scanid 만들기
signup-available = ‘{ $name }’은(는) 사용할 수 있습니다.
signup-taken = ‘{ $name }’은(는) 이미 사용 중입니다. 다른 이름을 고르세요.
signup-check = 표시된 항목을 확인하세요.
signup-photo-failed = 신원은 만들어졌지만 사진은 저장되지 않았습니다: { $reason }
photo = 사진(카메라 또는 파일)
photo-hint = JPEG, PNG 또는 WebP, 최대 1MB. 선택 사항.
photo-too-large = 이 사진은 1MB보다 큽니다. 더 작은 사진을 고르세요.
edit-title = 프로필 편집
edit-save = 저장
edit-saved = 프로필을 저장했습니다.

home-title = 나의 scanid
home-identity = 나의 신원
home-service-id = 서비스 ID
home-how = 어딘가에 로그인하려면 그 로그인 페이지의 QR 코드를 휴대폰 카메라로 스캔하세요. 링크가 여기에서 열립니다.
home-manage = 관리
home-activity = 최근 로그인
home-keys = 키와 패스키
home-agents = 당신을 대신해 행동하는 에이전트
home-rotate = 기기 키 교체
home-sign-out = 모든 곳에서 로그아웃
home-delete = 신원 삭제

keys-upgrade = 이 휴대폰에서 패스키 사용
keys-add = 패스키 추가
keys-upgrade-why = 패스키를 쓰면 승인할 때마다 지문, 얼굴 또는 PIN을 요구합니다. 잠금 해제된 휴대폰을 든 사람도 나 대신 승인할 수 없습니다. 지금 키가 패스키에 권한을 넘기고 나서 폐기됩니다.
keys-last-used = 마지막 사용: { $when }
keys-last-used-from = 마지막 사용: { $when }, { $place }에서
keys-not-used = 아직 사용하지 않음
keys-removed = 키를 삭제했습니다.
keys-remove = 삭제
keys-remove-confirm = 삭제하기
keys-remove-sign-out = 분실했거나 복사되었을 수 있음: 모든 곳에서 로그아웃도 하기
keys-last-key = 마지막 키입니다. 삭제하기 전에 다른 키를 추가하세요.
keys-this-phone = (이 휴대폰)
keys-passkey = 패스키
passkey-name = 이 휴대폰
keys-passkey-level = 기기 키로 추가됨: 이 패스키의 로그인은 기기 키의 로그인과 같게 취급됩니다(지문, 얼굴, PIN 수준 없음).
keys-device-key = 기기 키
keys-device-key-note = 잠금 해제를 요구하지 않고 서명합니다

rotate-text = 이 휴대폰에서 새 키를 만듭니다. 예전 키가 새 키에 권한을 넘기고 즉시 작동을 멈춥니다.
rotate-also = 모든 곳에서 로그아웃도 하기
rotate-also-hint = scanid로 한 모든 로그인을 끝냅니다. 모든 앱과 사이트에서 다시 로그인해야 합니다. 다른 사람이 내 휴대폰을 가지고 있었을 수 있다면 선택하세요.
rotate-confirm = 키 교체
rotate-done = 새 기기 키가 준비되었습니다. 예전 키는 더 이상 작동하지 않습니다.
rotate-done-everywhere = 새 기기 키가 준비되었습니다. 예전 키는 더 이상 작동하지 않으며, 모든 곳에서 로그아웃되었습니다.
sign-out-text = 모든 기기에서 scanid로 한 모든 로그인을 끝냅니다. 모든 앱과 사이트에 알리고, 다시 로그인하도록 요청합니다. 키는 그대로 유지됩니다.
sign-out-lost = 휴대폰이나 패스키를 분실했거나 복사되었을 수 있나요? ‘키와 패스키’에서 삭제한 다음(거기서도 이 작업을 할 수 있습니다) 모든 곳에서 로그아웃하세요.
signed-out = { $count ->
   *[other] 모든 곳에서 로그아웃되었습니다. 세션 { $count }개가 끝났고, 모든 앱과 사이트에서 다시 로그인해야 합니다.
}
delete-text = 서비스에서 내 scanid 신원을 삭제합니다. 프로필과 사진, 모든 곳의 로그인, 이 휴대폰의 키가 삭제됩니다. 내 이름은 다른 사람이 쓸 수 있게 됩니다. 되돌릴 수 없습니다.
delete-label = 확인하려면 이름({ $name })을 입력하세요
delete-mismatch = 확인하려면 이름 { $name }을(를) 입력하세요.
delete-confirm = 내 신원 삭제
delete-done = 신원을 삭제했습니다. 새로 만들 수 있습니다.

activity-none = 아직 로그인이 없습니다.
activity-approved = 승인됨
activity-denied = 거부됨
activity-refused = 차단됨(애플리케이션이 허용하지 않음)
activity-wrong-number = 취소됨(잘못된 숫자를 고름)
activity-second-device = 취소됨(두 번째 휴대폰이 스캔함)
activity-sso = 이미 로그인됨: 스캔 없음
activity-from = { $place }에서 · { $browser }
activity-unknown-browser = 알 수 없는 브라우저
activity-reported = 본인이 아니라고 신고됨.
activity-not-me = 내가 아니에요
activity-ask = { $client }의 이 로그인을 끝낼까요? 접근 권한이 즉시 취소되고 { $client }에 알립니다.
activity-yes = 네, 끝내기
activity-done-session = 완료: { $client }의 그 로그인을 끝내고 접근 권한을 취소했습니다.
activity-done-tokens = 완료: 그 로그인의 { $client } 접근 권한을 취소했습니다(세션은 이미 끝나 있었습니다).
activity-done-nothing = 신고했습니다. 그 로그인에서 끝낼 세션이나 접근 권한은 없었습니다.

place-unknown = 알 수 없는 주소
place-network = 네트워크 { $network }
where-started-from = 시작 위치
where-this-phone = 이 휴대폰
where-asked-at = 요청 시각
where-warning = 경고:
flag-location-mismatch = 이 휴대폰이 있는 나라와 다른 나라에서 시작되었습니다.
flag-first-from-here = 그 장소에서 온 로그인을 승인한 적이 없습니다.
flag-high-usage = 지난 한 시간 동안 내 신원으로 많은 로그인이 요청되었습니다.
where-refused = { $client }은(는) 이런 경고가 있는 로그인을 허용하지 않습니다. 승인할 수 없습니다.
where-deny-it = 거부하세요.

scan-reading = 코드를 읽는 중…
scan-expired = 이 코드는 만료되었습니다
scan-gone = 로그인이 더 이상 기다리지 않거나 코드가 오래되었습니다. 로그인 페이지의 코드를 다시 스캔하세요.
scan-new = { $client }이(가) scanid로 로그인해 달라고 요청합니다. 이 휴대폰에는 아직 scanid가 없습니다. 하나 만든 다음 승인하세요.
code-not-waiting = 이 코드는 대기 중이 아닙니다
code-invalid = 코드가 유효하지 않거나, 만료되었거나, 이미 사용되었습니다. 기기에서 다시 시작하세요.

scope-openid = 나의 scanid 식별자(주체 및 서비스 ID)
scope-profile = 사용자 이름, 표시 이름, 프로필 사진, 프로필을 마지막으로 바꾼 시각, 속한 그룹
scope-groups = 속한 그룹
scope-address = 나의 국가
scope-offline-access = 앱을 사용하지 않는 동안의 접근(오프라인 접근)
login-title = { $client }에 로그인할까요?
connect-title = { $client }을(를) 연결할까요?
asks-for = { $client }이(가) 요청하는 항목:
asks-for-at = { $host }의 { $client }이(가) 요청하는 항목:
an-app = 앱
resources = 그리고 나로서 다음에 접근:
self-registered = { $client }은(는) 이 서비스에 스스로 등록했습니다. 아무도 그 이름을 확인하지 않았습니다.
approve-as = { $user }(으)로 · { $time }까지
agent = { $os }의 { $browser }
started-here = 이 휴대폰에서 시작됨.
started-elsewhere = 이 로그인은 다른 기기에서 시작되었습니다.
address = 주소
browser = 브라우저
approve-only-if = 이 로그인을 방금 눈앞의 화면에서 직접 시작한 경우에만 승인하세요. 누군가 이 코드를 보냈다면 거부하세요.
device-check = 기기에 이 코드가 표시되는지 확인하세요:
device-address = 기기의 주소
device-calls-itself = 기기가 밝힌 이름(자체 주장, 확인 안 됨)
device-notice = 기기 코드는 기기가 보낸 요청입니다. 그 기기를 손에 들고 있거나 눈앞에 있고, 기기에 이 코드가 표시될 때만 승인하세요. 누군가 보내 주거나, 읽어 주거나, 입력하라고 한 코드를 승인할 필요는 없습니다. 그렇게 받았다면 거부하세요.
device-differ = 코드가 다르면 거부하세요.
pick = 로그인 화면에 표시된 숫자를 고르세요:
pick-passkey = 그다음 휴대폰이 승인을 위해 지문, 얼굴 또는 화면 잠금을 요구합니다.
number-here = 이 브라우저에서 시작됨: 로그인 페이지에 { $number }이(가) 표시되었습니다.
arming = 실수로 눌러 승인하지 않도록, 버튼은 이 화면이 나타나고 잠시 후에 작동합니다.
approve = 승인
deny = 거부
approved-title = 로그인 승인됨
denied-title = 로그인 거부됨
cancelled-title = 로그인 취소됨
approved-text = { $client }에 로그인하는 중입니다. 시작한 화면에서 계속하세요.
approved-device = { $client }이(가) 연결되었습니다. 기기에서 계속하세요.
denied-text = 거부했다는 사실을 { $client }에 알렸습니다.
refused = { $client }은(는) 이 로그인을 허용하지 않습니다: { $reason }. 취소되었습니다.
not-waiting = 이 로그인은 더 이상 기다리지 않습니다(만료되었거나 이미 결정됨). 코드를 다시 스캔하세요.

# The agents acting for the person (token exchange)
agents-text = 다른 곳에서 당신을 대신해 행동하도록 허용한 앱입니다. 허용한 범위를 넘지 않습니다. 철회하면 즉시 당신을 대신해 행동하지 못합니다.
agents-none = 당신을 대신해 행동하는 에이전트가 없습니다.
agents-since = { $when }에 허용
agents-scopes = 사용 가능: { $scopes }
agents-resources = 대상: { $resources }
agents-withdraw = 철회
agents-ask = { $client }이(가) 당신을 대신해 행동하지 못하게 할까요? 당신을 대신한 접근이 즉시 끝나고, 다음 로그인 때 다시 묻습니다.
agents-withdrawn = 철회됨: { $client }은(는) 더 이상 당신을 대신해 행동할 수 없습니다.

# Requests waiting for the person (OpenID CIBA)
waiting-title = 기다리고 있는 요청
waiting-none = 기다리고 있는 요청이 없습니다.
waiting-open = 열기
waiting-asked = { $time }에 요청됨
waiting-gone = 이 요청은 더 이상 기다리지 않습니다(만료되었거나 이미 결정되었습니다).
binding-message = 요청하는 쪽이 이와 똑같은 메시지를 보여 주어야 합니다:
binding-none = 이 요청에는 비교할 메시지가 없습니다.
binding-check = 지금 바로 이 애플리케이션과 거래 중이고(통화 중, 계산대에서, 에이전트와 함께) 보여 주는 내용이 일치할 때만 승인하세요. 예상하지 못한 요청이라면 거부하세요.
approve-agent = { $client }은(는) 에이전트입니다. 허용하면 이 접근 범위 안에서 당신을 대신해 행동할 수 있으며, 사용하는 모든 토큰에 당신을 대신해 행동한다는 사실이 표시됩니다. scanid 앱에서 언제든지 철회할 수 있습니다.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = 알림
push-text = 콜센터, 계산대, 에이전트 등이 백채널로 요청하면 이 휴대폰에 알림을 받습니다. 알림에는 요청이 기다리고 있다는 내용만 담깁니다.
push-is-on = 이 휴대폰에서 알림이 켜져 있습니다.
push-is-off = 알림이 꺼져 있습니다. 대기 중인 요청은 앱을 열면 볼 수 있습니다.
push-turn-on = 알림 켜기
push-turn-off = 알림 끄기
push-now-on = 알림을 켰습니다.
push-now-off = 알림을 껐습니다.
push-blocked = 이 앱의 알림이 차단되어 있습니다. 브라우저의 사이트 설정에서 허용한 뒤 다시 시도하세요.
push-notice-title = 요청이 기다리고 있습니다
push-notice-body = scanid를 열어 누가 요청했는지 확인하고 승인하거나 거부하세요.
