# Les pages de connexion de scanid en français. Mêmes messages et mêmes paramètres que en.ftl.

## Chaque page

brand = scanid
language-label = Langue
language-change = Changer

## La page de connexion (le code QR)

qr-title = Se connecter
qr-heading = Se connecter à { $client }
qr-device-client = { $client } (code { $code })
qr-scan = Scannez ce code avec l’application scanid pour vous connecter.
qr-alt = Code QR. Il contient ce lien : { $link }
self-registered = { $client } s’est enregistré lui-même auprès de ce service : personne n’a vérifié ce nom.
qr-on-phone = Sur votre téléphone ?
qr-open-app = Ouvrir l’application scanid
qr-waiting = En attente de l’application…
qr-passkey = Se connecter avec une clé d’accès
qr-no-app = Pas encore l’application ? Scannez le code avec l’appareil photo de votre téléphone : il ouvre l’application web scanid, où vous vous inscrivez.
qr-web-app = Ouvrir l’application web scanid
qr-get-app = Ou installez l’application :
qr-pick = Choisissez { $number } dans l’application scanid
qr-scanned-pick = Scanné. Sur votre téléphone, choisissez le nombre affiché ici.
qr-scanned = Scanné. Confirmez sur votre téléphone…
qr-gone = Cette demande de connexion n’est plus valable.
qr-expired = Ce code QR a expiré.
qr-restart = Recommencer
qr-wrong-number = Le nombre choisi sur le téléphone ne correspondait pas à celui affiché ici. Cette connexion est annulée.
qr-second-device = Un second téléphone a scanné ce code. Cette connexion est annulée : si ce n’était pas vous, quelqu’un a peut-être transféré votre code de connexion.
qr-denied = Refusé. On continue…
qr-approved = Approuvé. On continue…
passkey-waiting = En attente de votre clé d’accès…
passkey-signed-in = Connecté. On continue…
passkey-failed = La connexion par clé d’accès a échoué : { $reason }. Réessayez ou scannez le code QR.
passkey-cancelled = annulée

## La page de consentement

consent-title = Autoriser l’accès
consent-heading = { $client } souhaite accéder à votre compte scanid
consent-logged-in-as = Connecté en tant que { $name } (@{ $user })
consent-will-receive = { $client } recevra :
consent-resources = et l’accès, en votre nom, à :
consent-deny = Refuser
consent-allow = Autoriser
consent-sent-back = Vous serez renvoyé vers { $host }.
consent-agent = { $client } est un agent : si vous acceptez, il pourra aussi agir pour vous, sans dépasser cet accès, et chaque jeton qu’il utilise indique qu’il agit pour vous. Vous pouvez retirer cette autorisation à tout moment dans l’app scanid.
scope-openid = Vos identifiants scanid (sujet et identifiant de service)
scope-profile = Votre nom d’utilisateur, votre nom affiché, votre photo de profil, la date de dernière modification de votre profil et les groupes dont vous faites partie
scope-groups = Les groupes dont vous faites partie
scope-address = Votre pays
scope-offline_access = L’accès quand vous n’utilisez pas l’application (accès hors ligne)
scope-other = Autres données
claim-name = Votre nom affiché
claim-preferred_username = Votre nom d’utilisateur
claim-picture = Votre photo de profil
claim-updated_at = La date de dernière modification de votre profil

## La page du code d’appareil (RFC 8628)

device-title = Connecter un appareil
device-enter = Saisissez le code affiché par votre appareil.
device-code = Code
device-continue = Continuer
device-on-phone = Sur le téléphone qui porte votre scanid ?
device-approve-in-app = Approuver dans l’application scanid
device-then = Connectez-vous ensuite avec l’application scanid. Ne saisissez qu’un code venant d’un appareil que vous êtes en train de configurer.
device-not-from-page = Ce code n’a pas été envoyé depuis cette page (un autre site l’a envoyé, ou la page était trop ancienne). Saisissez ici le code affiché par votre appareil.
device-unknown-code = Ce code n’est pas valable, a expiré ou a déjà servi. Vérifiez le code sur votre appareil, ou recommencez depuis celui-ci.
device-connected = Appareil connecté
device-connected-text = { $client } est maintenant connecté à votre compte scanid. Vous pouvez fermer cette fenêtre et revenir à l’appareil.
device-refused = Appareil non connecté
device-refused-text = Vous avez refusé { $client } : l’appareil n’a pas été connecté. Vous pouvez fermer cette fenêtre.

## Connexion (form_post) et déconnexion

signing-in-title = Connexion
signing-in = Connexion en cours…
continue = Continuer
logout-title = Se déconnecter
logout-heading = Se déconnecter de scanid ?
logout-button = Se déconnecter
logged-out-title = Déconnecté
logged-out-heading = Vous êtes déconnecté
logged-out-text = Vous pouvez fermer cette fenêtre.

## Pages d’erreur

error-details = Détails :
error-request-invalid = Cette demande de connexion n’est pas valable
error-request-invalid-text = L’application a envoyé une demande de connexion que scanid ne peut pas accepter. Revenez à l’application et réessayez ; si cela se reproduit, signalez-le à ses éditeurs.
error-login-not-found = Demande de connexion introuvable
error-login-not-found-text = Cette demande de connexion n’existe pas ou a expiré. Recommencez depuis l’application.
error-wrong-browser = Mauvais navigateur
error-wrong-browser-text = Cette connexion ne peut être terminée que dans le navigateur qui l’a commencée.
error-expired = Demande de connexion expirée
error-expired-text = Cette demande de connexion a expiré. Recommencez depuis l’application.
error-completed = Déjà terminée
error-completed-text = Cette demande de connexion a déjà été terminée. Recommencez depuis l’application.
error-not-approved = Pas encore approuvée
error-not-approved-text = Scannez d’abord le code QR avec l’application scanid et approuvez la connexion.
error-unknown-app = Application inconnue
error-unknown-app-text = L’application qui a commencé cette connexion n’existe plus.
error-refused = Demande refusée
error-forged-text = Ce formulaire n’a pas été envoyé depuis la page de consentement.
error-no-choice = Choisissez d’autoriser ou de refuser
error-no-choice-text = Le formulaire de consentement était incomplet.
error-logout-invalid = Demande de déconnexion non valable
error-logout-repeated-text = Un paramètre est répété.
error-logout-invalid-text = scanid ne peut pas donner suite à cette demande de déconnexion.
error-logout-refused-text = Cette déconnexion n’a pas été confirmée sur la page de déconnexion de scanid.
error-failed = Une erreur s’est produite
error-failed-text = Veuillez réessayer.
error-unavailable = Temporairement indisponible
error-unavailable-text = scanid ne peut pas terminer cette étape pour le moment. Veuillez réessayer dans un instant.
error-rate-limited = Trop de tentatives de connexion
error-rate-limited-text = Veuillez patienter une minute et réessayer.
