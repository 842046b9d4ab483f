# The scanid web app (shared/http/static/app), English: the catalogue the others are held to.
# Compiled to JSON when scanid is built (shared/http/build.rs); the app loads only its language.
# `shell-` messages are also used by the server (the shell page and the manifest).

## The shell and the manifest

shell-loading = Loading…
shell-noscript = The scanid web app needs JavaScript. You can also get the app:
shell-description = Your scanid identity: sign up, and approve logins by scanning their QR code.

## Everywhere

language = Language
back = Back
cancel = Cancel
done = Done
go-home = Go to my scanid
unknown = unknown
details = Details
offline = The service cannot be reached. Are you online?
failed = Something went wrong
insecure-title = scanid needs a secure connection
insecure-text = Open this page over https. The scanid app keeps its key with your browser’s cryptography, which works only on secure pages.

## Sign-up and profile

welcome = Welcome! Your scanid is ready.
signup-title = Create your scanid
signup-intro = Your identity lives on this phone: a key is made here and never leaves it.
signup-name = Name (your unique handle)
signup-name-hint = 3 to 32 of a–z, 0–9, dot, underscore, hyphen.
display-name = Display name
signup-country = Country (two letters, e.g. SE)
signup-country-hint = ISO 3166-1 code, upper case.
signup-submit = Create my scanid
signup-available = “{ $name }” is available.
signup-taken = “{ $name }” is taken. Choose another name.
signup-check = Please check the highlighted fields.
signup-photo-failed = Your identity was created, but the photo was not saved: { $reason }
photo = Photo (camera or file)
photo-hint = JPEG, PNG or WebP, at most 1 MB. Optional.
photo-too-large = This photo is larger than 1 MB; choose a smaller one.
edit-title = Edit profile
edit-save = Save
edit-saved = Profile saved.

## Home

home-title = Your scanid
home-identity = Your identity
home-service-id = Service ID
home-how = To log in somewhere, scan the QR code on its login page with your phone’s camera. The link opens here.
home-manage = Manage
home-activity = Recent logins
home-keys = Keys and passkeys
home-agents = Agents acting for you
home-rotate = Replace device key
home-sign-out = Sign out everywhere
home-delete = Delete identity

## Keys and passkeys

keys-upgrade = Use a passkey on this phone
keys-add = Add a passkey
keys-upgrade-why = With a passkey, every approval asks for your fingerprint, face or PIN: someone holding your unlocked phone cannot approve for you. Your current key signs the passkey over, then retires.
keys-last-used = Last used { $when }
keys-last-used-from = Last used { $when } from { $place }
keys-not-used = Not used yet
keys-removed = The key was removed.
keys-remove = Remove
keys-remove-confirm = Remove it
keys-remove-sign-out = It was lost or may have been copied: also sign out everywhere
keys-last-key = This is your last key: add another before removing it.
keys-this-phone = (this phone)
keys-passkey = Passkey
passkey-name = This phone
keys-passkey-level = Added with the device key: its logins count as the device key’s (no fingerprint, face or PIN level).
keys-device-key = Device key
keys-device-key-note = Signs without asking for your unlock

## Replacing the key, signing out, deleting

rotate-text = A new key is made on this phone. The old key signs it over, and stops working at once.
rotate-also = Also sign out everywhere
rotate-also-hint = Ends every login made with scanid: each app and site asks you to log in again. Choose this if someone else may have had your phone.
rotate-confirm = Replace the key
rotate-done = A new device key is in place; the old one no longer works.
rotate-done-everywhere = A new device key is in place; the old one no longer works, and you are signed out everywhere.
sign-out-text = Ends every login made with scanid, on every device: each app and site is told, and asks you to log in again. Your keys stay as they are.
sign-out-lost = Was a phone or a passkey lost, or may it have been copied? Remove it under “Keys and passkeys” (which offers this too), then sign out everywhere.
signed-out = { $count ->
    [one] You are signed out everywhere: { $count } session ended, and every app and site asks you to log in again.
   *[other] You are signed out everywhere: { $count } sessions ended, and every app and site asks you to log in again.
}
delete-text = This deletes your scanid identity at the service: your profile and photo, your logins everywhere, and the key on this phone. Your name becomes free for others. This cannot be undone.
delete-label = Type your name ({ $name }) to confirm
delete-mismatch = Type your name, { $name }, to confirm.
delete-confirm = Delete my identity
delete-done = Your identity was deleted. You can create a new one.

## Recent logins

activity-none = No logins yet.
activity-approved = approved
activity-denied = denied
activity-refused = refused (the application does not allow it)
activity-wrong-number = cancelled (a wrong number was picked)
activity-second-device = cancelled (a second phone scanned it)
activity-sso = already signed in: no scan
activity-from = from { $place } · { $browser }
activity-unknown-browser = unknown browser
activity-reported = Reported as not you.
activity-not-me = This wasn’t me
activity-ask = Sign out this login to { $client }? Its access is revoked at once and { $client } is told.
activity-yes = Yes, sign it out
activity-done-session = Done: { $client } was signed out of that login and its access was revoked.
activity-done-tokens = Done: that login’s access to { $client } was revoked (its session had already ended).
activity-done-nothing = Reported. No session or access of that login was found to end.

## Where a login came from

place-unknown = unknown address
place-network = network { $network }
where-started-from = Started from
where-this-phone = This phone
where-asked-at = Asked at
where-warning = Warning:
flag-location-mismatch = It was started in another country than this phone is in.
flag-first-from-here = You have never approved a login from that place.
flag-high-usage = Many logins were asked for your identity in the last hour.
where-refused = { $client } does not allow a login with these warnings: it cannot be approved.
where-deny-it = Deny it.

## Scanning a code

scan-reading = Reading the code…
scan-expired = This code has expired
scan-gone = The login is no longer waiting, or the code was old. Scan the code on the login page again.
scan-new = { $client } asks you to log in with scanid. You have no scanid on this phone yet: create one, then approve.
code-not-waiting = This code is not waiting
code-invalid = The code is not valid, has expired or was used. Start again on the device.

## The approval screen

scope-openid = Your scanid identifiers (subject and service ID)
scope-profile = Your user name, display name, profile photo, when your profile last changed, and the groups you belong to
scope-groups = The groups you belong to
scope-address = Your country
scope-offline-access = Access while you are not using the app (offline access)
login-title = Log in to { $client }?
connect-title = Connect { $client }?
asks-for = { $client } asks for:
asks-for-at = { $client } at { $host } asks for:
an-app = an app
resources = and access, as you, to:
self-registered = { $client } registered itself with this service: nobody has checked that name.
approve-as = As { $user } · until { $time }
agent = { $browser } on { $os }
started-here = Started on this phone.
started-elsewhere = This login was started on another device.
address = Address
browser = Browser
approve-only-if = Approve only if you started this login yourself, just now, on a screen in front of you. If someone sent you this code, deny.
device-check = Check that the device shows this code:
device-address = The device’s address
device-calls-itself = The device calls itself (its own claim, unchecked)
device-notice = A device code is a request from a device. Approve only if you are holding that device (or it is in front of you) and it shows this code. Nobody needs you to approve a code they sent you, read to you or asked you to type: if that is how you got it, deny.
device-differ = If the codes differ, deny.
pick = Pick the number shown on the login screen:
pick-passkey = Your phone will then ask for your fingerprint, face or screen lock to approve.
number-here = Started in this browser: its login page showed { $number }.
arming = The buttons work a moment after this screen appears, so a stray tap cannot approve.
approve = Approve
deny = Deny
approved-title = Login approved
denied-title = Login denied
cancelled-title = Login cancelled
approved-text = You are logging in to { $client }. Continue on the screen where you started.
approved-device = { $client } is connected. Continue on the device.
denied-text = { $client } was told you said no.
refused = { $client } does not allow this login: { $reason }. It was cancelled.
not-waiting = This login is no longer waiting (it expired or was decided). Scan the code again.

# The agents acting for the person (token exchange)
agents-text = Applications you allowed to act for you elsewhere, with no more than you allowed them. Withdraw one and it stops acting for you at once.
agents-none = No agent acts for you.
agents-since = Allowed { $when }
agents-scopes = May use: { $scopes }
agents-resources = At: { $resources }
agents-withdraw = Withdraw
agents-ask = Stop { $client } from acting for you? Its access on your behalf ends at once, and its next login asks you again.
agents-withdrawn = Withdrawn: { $client } can no longer act for you.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Requests waiting for you
waiting-none = No request is waiting for you.
waiting-open = Open
waiting-asked = Asked at { $time }
waiting-gone = This request is no longer waiting (it expired or was decided).
binding-message = The one asking should show you this same message:
binding-none = This request came with no message to compare.
binding-check = Approve only if you are dealing with this application right now (on a call, at a till, with your agent) and what it shows you matches. If you did not expect this request, deny.
approve-agent = { $client } is an agent: if you allow, it may also act for you with no more than this access, and every token it uses names it as acting for you. You can withdraw this at any time in the scanid app.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Notifications
push-text = Get a notification on this phone when someone asks for you by the back channel: a call centre, a till or an agent. It says only that a request is waiting.
push-is-on = Notifications are on for this phone.
push-is-off = Notifications are off: open the app to see waiting requests.
push-turn-on = Turn on notifications
push-turn-off = Turn off notifications
push-now-on = Notifications are on.
push-now-off = Notifications are off.
push-blocked = Notifications are blocked for this app. Allow them in your browser's site settings, then try again.
push-notice-title = A request is waiting for you
push-notice-body = Open scanid to see who is asking, then approve or deny.
