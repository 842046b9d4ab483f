# L’application web scanid, français (alignée sur en.ftl).

shell-loading = Chargement…
shell-noscript = L’application web scanid a besoin de JavaScript. Vous pouvez aussi installer l’application :
shell-description = Votre identité scanid : inscrivez-vous et approuvez les connexions en scannant leur code QR.

language = Langue
back = Retour
cancel = Annuler
done = Terminé
go-home = Aller à mon scanid
unknown = inconnu
details = Détails
offline = Le service est injoignable. Êtes-vous connecté à Internet ?
failed = Un problème est survenu
insecure-title = scanid a besoin d’une connexion sécurisée
insecure-text = Ouvrez cette page en https. L’application scanid garde sa clé avec la cryptographie de votre navigateur, qui ne fonctionne que sur les pages sécurisées.

welcome = Bienvenue ! Votre scanid est prêt.
signup-title = Créer votre scanid
signup-intro = Votre identité vit sur ce téléphone : une clé y est créée et ne le quitte jamais.
signup-name = Nom (votre identifiant unique)
signup-name-hint = De 3 à 32 caractères parmi a–z, 0–9, point, tiret bas, trait d’union.
display-name = Nom affiché
signup-country = Pays (deux lettres, p. ex. FR)
signup-country-hint = Code ISO 3166-1, en majuscules.
signup-submit = Créer mon scanid
signup-available = « { $name } » est disponible.
signup-taken = « { $name } » est déjà pris. Choisissez un autre nom.
signup-check = Vérifiez les champs signalés.
signup-photo-failed = Votre identité a été créée, mais la photo n’a pas été enregistrée : { $reason }
photo = Photo (appareil photo ou fichier)
photo-hint = JPEG, PNG ou WebP, 1 Mo au plus. Facultatif.
photo-too-large = Cette photo dépasse 1 Mo ; choisissez-en une plus petite.
edit-title = Modifier le profil
edit-save = Enregistrer
edit-saved = Profil enregistré.

home-title = Votre scanid
home-identity = Votre identité
home-service-id = ID de service
home-how = Pour vous connecter quelque part, scannez le code QR de sa page de connexion avec l’appareil photo de votre téléphone. Le lien s’ouvre ici.
home-manage = Gérer
home-activity = Connexions récentes
home-keys = Clés et clés d’accès
home-agents = Agents qui agissent pour vous
home-rotate = Remplacer la clé de l’appareil
home-sign-out = Se déconnecter partout
home-delete = Supprimer l’identité

keys-upgrade = Utiliser une clé d’accès sur ce téléphone
keys-add = Ajouter une clé d’accès
keys-upgrade-why = Avec une clé d’accès, chaque approbation demande votre empreinte, votre visage ou votre code : quelqu’un qui tient votre téléphone déverrouillé ne peut pas approuver à votre place. Votre clé actuelle transmet ses droits à la clé d’accès, puis est retirée.
keys-last-used = Dernière utilisation { $when }
keys-last-used-from = Dernière utilisation { $when } depuis { $place }
keys-not-used = Pas encore utilisée
keys-removed = La clé a été supprimée.
keys-remove = Supprimer
keys-remove-confirm = Oui, la supprimer
keys-remove-sign-out = Elle a été perdue ou a pu être copiée : me déconnecter aussi partout
keys-last-key = C’est votre dernière clé : ajoutez-en une autre avant de la supprimer.
keys-this-phone = (ce téléphone)
keys-passkey = Clé d’accès
passkey-name = Ce téléphone
keys-passkey-level = Ajoutée avec la clé de l’appareil : ses connexions comptent comme celles de la clé de l’appareil (sans niveau empreinte, visage ou code).
keys-device-key = Clé de l’appareil
keys-device-key-note = Signe sans demander le déverrouillage

rotate-text = Une nouvelle clé est créée sur ce téléphone. L’ancienne clé lui transmet ses droits et cesse aussitôt de fonctionner.
rotate-also = Me déconnecter aussi partout
rotate-also-hint = Met fin à chaque connexion faite avec scanid : chaque application et chaque site vous demande de vous reconnecter. Choisissez cette option si quelqu’un d’autre a pu avoir votre téléphone.
rotate-confirm = Remplacer la clé
rotate-done = Une nouvelle clé d’appareil est en place ; l’ancienne ne fonctionne plus.
rotate-done-everywhere = Une nouvelle clé d’appareil est en place ; l’ancienne ne fonctionne plus, et vous êtes déconnecté partout.
sign-out-text = Met fin à chaque connexion faite avec scanid, sur chaque appareil : chaque application et chaque site est prévenu et vous demande de vous reconnecter. Vos clés restent telles quelles.
sign-out-lost = Un téléphone ou une clé d’accès a été perdu, ou a pu être copié ? Supprimez-le dans « Clés et clés d’accès » (qui propose aussi ceci), puis déconnectez-vous partout.
signed-out = { $count ->
    [one] Vous êtes déconnecté partout : { $count } session fermée, et chaque application et chaque site vous demande de vous reconnecter.
   *[other] Vous êtes déconnecté partout : { $count } sessions fermées, et chaque application et chaque site vous demande de vous reconnecter.
}
delete-text = Ceci supprime votre identité scanid auprès du service : votre profil et votre photo, vos connexions partout et la clé de ce téléphone. Votre nom redevient libre pour d’autres. C’est irréversible.
delete-label = Saisissez votre nom ({ $name }) pour confirmer
delete-mismatch = Saisissez votre nom, { $name }, pour confirmer.
delete-confirm = Supprimer mon identité
delete-done = Votre identité a été supprimée. Vous pouvez en créer une nouvelle.

activity-none = Aucune connexion pour l’instant.
activity-approved = approuvée
activity-denied = refusée
activity-refused = bloquée (l’application ne l’autorise pas)
activity-wrong-number = annulée (un mauvais nombre a été choisi)
activity-second-device = annulée (un second téléphone l’a scannée)
activity-sso = déjà connecté : sans scan
activity-from = depuis { $place } · { $browser }
activity-unknown-browser = navigateur inconnu
activity-reported = Signalée comme « pas moi ».
activity-not-me = Ce n’était pas moi
activity-ask = Fermer cette connexion à { $client } ? Son accès est révoqué aussitôt et { $client } est prévenu.
activity-yes = Oui, la fermer
activity-done-session = C’est fait : { $client } a été déconnecté de cette connexion et son accès révoqué.
activity-done-tokens = C’est fait : l’accès de cette connexion à { $client } a été révoqué (sa session était déjà terminée).
activity-done-nothing = Signalée. Aucune session ni aucun accès de cette connexion ne restait à fermer.

place-unknown = adresse inconnue
place-network = réseau { $network }
where-started-from = Lancée depuis
where-this-phone = Ce téléphone
where-asked-at = Demandée le
where-warning = Attention :
flag-location-mismatch = Elle a été lancée dans un autre pays que celui où se trouve ce téléphone.
flag-first-from-here = Vous n’avez jamais approuvé de connexion depuis cet endroit.
flag-high-usage = De nombreuses connexions ont été demandées pour votre identité dans la dernière heure.
where-refused = { $client } n’autorise pas de connexion avec ces avertissements : elle ne peut pas être approuvée.
where-deny-it = Refusez-la.

scan-reading = Lecture du code…
scan-expired = Ce code a expiré
scan-gone = La connexion n’attend plus, ou le code était ancien. Scannez à nouveau le code de la page de connexion.
scan-new = { $client } vous demande de vous connecter avec scanid. Il n’y a pas encore de scanid sur ce téléphone : créez-en un, puis approuvez.
code-not-waiting = Ce code n’est pas en attente
code-invalid = Le code n’est pas valide, a expiré ou a déjà servi. Recommencez sur l’appareil.

scope-openid = Vos identifiants scanid (sujet et ID de service)
scope-profile = Votre nom d’utilisateur, votre nom affiché, votre photo de profil, la date de dernière modification de votre profil et les groupes dont vous faites partie
scope-groups = Les groupes dont vous faites partie
scope-address = Votre pays
scope-offline-access = Un accès pendant que vous n’utilisez pas l’application (accès hors ligne)
login-title = Se connecter à { $client } ?
connect-title = Connecter { $client } ?
asks-for = { $client } demande :
asks-for-at = { $client } sur { $host } demande :
an-app = une application
resources = et un accès, en votre nom, à :
self-registered = { $client } s’est inscrit lui-même auprès de ce service : personne n’a vérifié ce nom.
approve-as = En tant que { $user } · jusqu’à { $time }
agent = { $browser } sous { $os }
started-here = Lancée sur ce téléphone.
started-elsewhere = Cette connexion a été lancée sur un autre appareil.
address = Adresse
browser = Navigateur
approve-only-if = N’approuvez que si vous avez lancé cette connexion vous-même, à l’instant, sur un écran devant vous. Si quelqu’un vous a envoyé ce code, refusez.
device-check = Vérifiez que l’appareil affiche ce code :
device-address = L’adresse de l’appareil
device-calls-itself = L’appareil se présente comme (sa propre déclaration, non vérifiée)
device-notice = Un code d’appareil est une demande venant d’un appareil. N’approuvez que si vous tenez cet appareil (ou qu’il est devant vous) et qu’il affiche ce code. Personne n’a besoin que vous approuviez un code qu’on vous a envoyé, lu ou demandé de saisir : si c’est ainsi que vous l’avez reçu, refusez.
device-differ = Si les codes diffèrent, refusez.
pick = Choisissez le nombre affiché sur l’écran de connexion :
pick-passkey = Votre téléphone demandera ensuite votre empreinte, votre visage ou le verrouillage de l’écran pour approuver.
number-here = Lancée dans ce navigateur : sa page de connexion affichait { $number }.
arming = Les boutons ne répondent qu’un instant après l’affichage de cet écran, pour qu’un appui involontaire n’approuve rien.
approve = Approuver
deny = Refuser
approved-title = Connexion approuvée
denied-title = Connexion refusée
cancelled-title = Connexion annulée
approved-text = Vous vous connectez à { $client }. Continuez sur l’écran où vous avez commencé.
approved-device = { $client } est connecté. Continuez sur l’appareil.
denied-text = { $client } a été informé de votre refus.
refused = { $client } n’autorise pas cette connexion : { $reason }. Elle a été annulée.
not-waiting = Cette connexion n’attend plus (elle a expiré ou a déjà été décidée). Scannez à nouveau le code.

# The agents acting for the person (token exchange)
agents-text = Les applications que vous avez autorisées à agir pour vous ailleurs, sans dépasser l’accès que vous leur avez donné. Retirez-en une et elle cesse aussitôt d’agir pour vous.
agents-none = Aucun agent n’agit pour vous.
agents-since = Autorisé { $when }
agents-scopes = Peut utiliser : { $scopes }
agents-resources = Auprès de : { $resources }
agents-withdraw = Retirer
agents-ask = Empêcher { $client } d’agir pour vous ? Son accès en votre nom prend fin aussitôt, et sa prochaine connexion vous redemandera.
agents-withdrawn = Retiré : { $client } ne peut plus agir pour vous.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Demandes en attente
waiting-none = Aucune demande ne vous attend.
waiting-open = Ouvrir
waiting-asked = Demandée à { $time }
waiting-gone = Cette demande n’est plus en attente (elle a expiré ou a été tranchée).
binding-message = Celui qui demande devrait vous montrer exactement ce message :
binding-none = Cette demande n’a aucun message à comparer.
binding-check = N’approuvez que si vous êtes en train d’échanger avec cette application (au téléphone, à une caisse, avec votre agent) et que ce qu’elle vous montre correspond. Si vous n’attendiez pas cette demande, refusez.
approve-agent = { $client } est un agent : si vous acceptez, il pourra aussi agir pour vous, sans dépasser cet accès, et chaque jeton qu’il utilise indique qu’il agit pour vous. Vous pouvez retirer cette autorisation à tout moment dans l’app scanid.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Notifications
push-text = Recevez une notification sur ce téléphone quand quelqu'un vous sollicite par le canal de retour : un centre d'appels, une caisse ou un agent. Elle dit seulement qu'une demande attend.
push-is-on = Les notifications sont activées sur ce téléphone.
push-is-off = Les notifications sont désactivées : ouvrez l'application pour voir les demandes en attente.
push-turn-on = Activer les notifications
push-turn-off = Désactiver les notifications
push-now-on = Notifications activées.
push-now-off = Notifications désactivées.
push-blocked = Les notifications sont bloquées pour cette application. Autorisez-les dans les paramètres du site de votre navigateur, puis réessayez.
push-notice-title = Une demande vous attend
push-notice-body = Ouvrez scanid pour voir qui demande, puis approuvez ou refusez.
