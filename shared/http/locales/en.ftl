# scanid's login pages in English: the catalogue every other language is held to (the same
# messages, the same placeholders). See docs/book/src/languages.md.

## Every page

brand = scanid
language-label = Language
language-change = Change

## The login page (the QR code)

qr-title = Log in
qr-heading = Log in to { $client }
qr-device-client = { $client } (code { $code })
qr-scan = Scan this code with the scanid app to log in.
qr-alt = QR code. It holds this link: { $link }
self-registered = { $client } registered itself with this service: nobody has checked that name.
qr-on-phone = On your phone?
qr-open-app = Open the scanid app
qr-waiting = Waiting for the app…
qr-passkey = Sign in with a passkey
qr-no-app = No app yet? Scan the code with your phone's camera: it opens the scanid web app, where you sign up.
qr-web-app = Open the scanid web app
qr-get-app = Or get the app:
qr-pick = Pick { $number } in the scanid app
qr-scanned-pick = Scanned. On your phone, pick the number shown here.
qr-scanned = Scanned. Confirm on your phone…
qr-gone = This login request is no longer valid.
qr-expired = This QR code has expired.
qr-restart = Start again
qr-wrong-number = The number picked on the phone did not match the one shown here. This login is cancelled.
qr-second-device = A second phone scanned this code. This login is cancelled: if that was not you, someone may have forwarded your login code.
qr-denied = Denied. Continuing…
qr-approved = Approved. Continuing…
passkey-waiting = Waiting for your passkey…
passkey-signed-in = Signed in. Continuing…
passkey-failed = Passkey sign-in failed: { $reason }. Try again, or scan the QR code.
passkey-cancelled = cancelled

## The consent page

consent-title = Allow access
consent-heading = { $client } wants to access your scanid account
consent-logged-in-as = Logged in as { $name } (@{ $user })
consent-will-receive = { $client } will receive:
consent-resources = and access, as you, to:
consent-deny = Deny
consent-allow = Allow
consent-sent-back = You will be sent back to { $host }.
consent-agent = { $client } is an agent: if you allow, it may also act for you with no more than this access, and every token it uses names it as acting for you. You can withdraw this at any time in the scanid app.
scope-openid = Your scanid identifiers (subject and service ID)
scope-profile = Your user name, display name, profile photo, when your profile last changed, and the groups you belong to
scope-groups = The groups you belong to
scope-address = Your country
scope-offline_access = Access while you are not using the app (offline access)
scope-other = Other data
claim-name = Your display name
claim-preferred_username = Your user name
claim-picture = Your profile photo
claim-updated_at = When your profile last changed

## The device code page (RFC 8628)

device-title = Connect a device
device-enter = Enter the code your device shows.
device-code = Code
device-continue = Continue
device-on-phone = On the phone with your scanid?
device-approve-in-app = Approve in the scanid app
device-then = Then log in with the scanid app. Only enter a code you got from a device you are setting up.
device-not-from-page = This code was not sent from this page (another site sent it, or the page was too old). Type the code your device shows, here.
device-unknown-code = This code is not valid, has expired or was used. Check the code on your device, or start again there.
device-connected = Device connected
device-connected-text = { $client } is now connected to your scanid account. You can close this window and go back to the device.
device-refused = Device not connected
device-refused-text = You refused { $client }: the device was not connected. You can close this window.

## Signing in (form_post) and logging out

signing-in-title = Signing you in
signing-in = Signing you in…
continue = Continue
logout-title = Log out
logout-heading = Log out of scanid?
logout-button = Log out
logged-out-title = Logged out
logged-out-heading = You are logged out
logged-out-text = You can close this window.

## Error pages

error-details = Details:
error-request-invalid = This login request is not valid
error-request-invalid-text = The application sent a login request that scanid cannot accept. Go back to the application and try again; if it keeps happening, tell its makers.
error-login-not-found = Login request not found
error-login-not-found-text = This login request does not exist or has expired. Start again from the application.
error-wrong-browser = Wrong browser
error-wrong-browser-text = This login can only be completed in the browser that started it.
error-expired = Login request expired
error-expired-text = This login request has expired. Start again from the application.
error-completed = Already completed
error-completed-text = This login request was already completed. Start again from the application.
error-not-approved = Not approved yet
error-not-approved-text = Scan the QR code with the scanid app and approve the login first.
error-unknown-app = Unknown application
error-unknown-app-text = The application that started this login no longer exists.
error-refused = Request refused
error-forged-text = This form was not submitted from the consent page.
error-no-choice = Choose allow or deny
error-no-choice-text = The consent form was incomplete.
error-logout-invalid = Invalid logout request
error-logout-repeated-text = A parameter is repeated.
error-logout-invalid-text = scanid cannot act on this logout request.
error-logout-refused-text = This logout was not confirmed on the scanid logout page.
error-failed = Something went wrong
error-failed-text = Please try again.
error-unavailable = Temporarily unavailable
error-unavailable-text = scanid cannot complete this step right now. Please try again in a moment.
error-rate-limited = Too many login attempts
error-rate-limited-text = Please wait a minute and try again.
