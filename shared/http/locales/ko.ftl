# scanid 로그인 페이지(한국어). en.ftl과 같은 메시지와 자리 표시자.

## 모든 페이지

brand = scanid
language-label = 언어
language-change = 변경

## 로그인 페이지(QR 코드)

qr-title = 로그인
qr-heading = { $client }에 로그인
qr-device-client = { $client } (코드 { $code })
qr-scan = 로그인하려면 scanid 앱으로 이 코드를 스캔하세요.
qr-alt = QR 코드. 다음 링크가 들어 있습니다: { $link }
self-registered = { $client }은(는) 이 서비스에 스스로 등록했습니다. 아무도 이 이름을 확인하지 않았습니다.
qr-on-phone = 휴대폰을 사용 중인가요?
qr-open-app = scanid 앱 열기
qr-waiting = 앱을 기다리는 중…
qr-passkey = 패스키로 로그인
qr-no-app = 아직 앱이 없나요? 휴대폰 카메라로 코드를 스캔하면 scanid 웹 앱이 열리고, 거기서 가입할 수 있습니다.
qr-web-app = scanid 웹 앱 열기
qr-get-app = 또는 앱 받기:
qr-pick = scanid 앱에서 { $number }을(를) 선택하세요
qr-scanned-pick = 스캔했습니다. 휴대폰에서 여기에 표시된 숫자를 선택하세요.
qr-scanned = 스캔했습니다. 휴대폰에서 확인하세요…
qr-gone = 이 로그인 요청은 더 이상 유효하지 않습니다.
qr-expired = 이 QR 코드는 만료되었습니다.
qr-restart = 다시 시작
qr-wrong-number = 휴대폰에서 선택한 숫자가 여기에 표시된 숫자와 다릅니다. 이 로그인은 취소되었습니다.
qr-second-device = 다른 휴대폰이 이 코드를 스캔했습니다. 이 로그인은 취소되었습니다. 본인이 아니라면 누군가 로그인 코드를 전달했을 수 있습니다.
qr-denied = 거부했습니다. 계속하는 중…
qr-approved = 승인했습니다. 계속하는 중…
passkey-waiting = 패스키를 기다리는 중…
passkey-signed-in = 로그인했습니다. 계속하는 중…
passkey-failed = 패스키로 로그인하지 못했습니다: { $reason }. 다시 시도하거나 QR 코드를 스캔하세요.
passkey-cancelled = 취소됨

## 동의 페이지

consent-title = 접근 허용
consent-heading = { $client }이(가) scanid 계정에 접근하려고 합니다
consent-logged-in-as = { $name }(@{ $user }) 계정으로 로그인됨
consent-will-receive = { $client }이(가) 받을 정보:
consent-resources = 그리고 사용자 본인으로서의 접근:
consent-deny = 거부
consent-allow = 허용
consent-sent-back = { $host }(으)로 돌아갑니다.
consent-agent = { $client }은(는) 에이전트입니다. 허용하면 이 접근 범위 안에서 당신을 대신해 행동할 수 있으며, 사용하는 모든 토큰에 당신을 대신해 행동한다는 사실이 표시됩니다. scanid 앱에서 언제든지 철회할 수 있습니다.
scope-openid = scanid 식별자(주체 및 서비스 ID)
scope-profile = 사용자 이름, 표시 이름, 프로필 사진, 프로필을 마지막으로 변경한 시각, 소속 그룹
scope-groups = 소속 그룹
scope-address = 국가
scope-offline_access = 앱을 사용하지 않는 동안의 접근(오프라인 접근)
scope-other = 기타 데이터
claim-name = 표시 이름
claim-preferred_username = 사용자 이름
claim-picture = 프로필 사진
claim-updated_at = 프로필을 마지막으로 변경한 시각

## 기기 코드 페이지(RFC 8628)

device-title = 기기 연결
device-enter = 기기에 표시된 코드를 입력하세요.
device-code = 코드
device-continue = 계속
device-on-phone = scanid가 있는 휴대폰을 사용 중인가요?
device-approve-in-app = scanid 앱에서 승인
device-then = 그런 다음 scanid 앱으로 로그인하세요. 직접 설정 중인 기기에서 받은 코드만 입력하세요.
device-not-from-page = 이 코드는 이 페이지에서 보낸 것이 아닙니다(다른 사이트에서 보냈거나 페이지가 너무 오래되었습니다). 기기에 표시된 코드를 여기에 입력하세요.
device-unknown-code = 이 코드는 유효하지 않거나 만료되었거나 이미 사용되었습니다. 기기의 코드를 확인하거나 기기에서 다시 시작하세요.
device-connected = 기기가 연결됨
device-connected-text = { $client }이(가) 이제 scanid 계정에 연결되었습니다. 이 창을 닫고 기기로 돌아가세요.
device-refused = 기기가 연결되지 않음
device-refused-text = { $client }을(를) 거부하여 기기가 연결되지 않았습니다. 이 창을 닫아도 됩니다.

## 로그인(form_post) 및 로그아웃

signing-in-title = 로그인 중
signing-in = 로그인하는 중…
continue = 계속
logout-title = 로그아웃
logout-heading = scanid에서 로그아웃할까요?
logout-button = 로그아웃
logged-out-title = 로그아웃됨
logged-out-heading = 로그아웃되었습니다
logged-out-text = 이 창을 닫아도 됩니다.

## 오류 페이지

error-details = 세부 정보:
error-request-invalid = 이 로그인 요청은 유효하지 않습니다
error-request-invalid-text = 애플리케이션이 scanid가 받을 수 없는 로그인 요청을 보냈습니다. 애플리케이션으로 돌아가 다시 시도하세요. 계속 발생하면 개발자에게 알려 주세요.
error-login-not-found = 로그인 요청을 찾을 수 없음
error-login-not-found-text = 이 로그인 요청이 없거나 만료되었습니다. 애플리케이션에서 다시 시작하세요.
error-wrong-browser = 다른 브라우저
error-wrong-browser-text = 이 로그인은 시작한 브라우저에서만 완료할 수 있습니다.
error-expired = 로그인 요청 만료
error-expired-text = 이 로그인 요청은 만료되었습니다. 애플리케이션에서 다시 시작하세요.
error-completed = 이미 완료됨
error-completed-text = 이 로그인 요청은 이미 완료되었습니다. 애플리케이션에서 다시 시작하세요.
error-not-approved = 아직 승인되지 않음
error-not-approved-text = 먼저 scanid 앱으로 QR 코드를 스캔하고 로그인을 승인하세요.
error-unknown-app = 알 수 없는 애플리케이션
error-unknown-app-text = 이 로그인을 시작한 애플리케이션이 더 이상 존재하지 않습니다.
error-refused = 요청 거부됨
error-forged-text = 이 양식은 동의 페이지에서 제출되지 않았습니다.
error-no-choice = 허용 또는 거부를 선택하세요
error-no-choice-text = 동의 양식이 완전하지 않았습니다.
error-logout-invalid = 잘못된 로그아웃 요청
error-logout-repeated-text = 매개변수가 중복되었습니다.
error-logout-invalid-text = scanid가 이 로그아웃 요청을 처리할 수 없습니다.
error-logout-refused-text = 이 로그아웃은 scanid 로그아웃 페이지에서 확인되지 않았습니다.
error-failed = 문제가 발생했습니다
error-failed-text = 다시 시도하세요.
error-unavailable = 일시적으로 사용할 수 없음
error-unavailable-text = scanid가 지금은 이 단계를 완료할 수 없습니다. 잠시 후 다시 시도하세요.
error-rate-limited = 로그인 시도가 너무 많음
error-rate-limited-text = 1분 기다린 후 다시 시도하세요.
