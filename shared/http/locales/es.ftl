# Las páginas de inicio de sesión de scanid en español. Los mismos mensajes y marcadores que en.ftl.

## Todas las páginas

brand = scanid
language-label = Idioma
language-change = Cambiar

## La página de inicio de sesión (el código QR)

qr-title = Iniciar sesión
qr-heading = Iniciar sesión en { $client }
qr-device-client = { $client } (código { $code })
qr-scan = Escanea este código con la app scanid para iniciar sesión.
qr-alt = Código QR. Contiene este enlace: { $link }
self-registered = { $client } se registró a sí mismo en este servicio: nadie ha comprobado ese nombre.
qr-on-phone = ¿Estás en el móvil?
qr-open-app = Abrir la app scanid
qr-waiting = Esperando a la app…
qr-passkey = Iniciar sesión con una llave de acceso
qr-no-app = ¿Aún no tienes la app? Escanea el código con la cámara del móvil: se abrirá la app web de scanid, donde te registras.
qr-web-app = Abrir la app web de scanid
qr-get-app = O descarga la app:
qr-pick = Elige { $number } en la app scanid
qr-scanned-pick = Escaneado. En tu móvil, elige el número que se muestra aquí.
qr-scanned = Escaneado. Confirma en tu móvil…
qr-gone = Esta solicitud de inicio de sesión ya no es válida.
qr-expired = Este código QR ha caducado.
qr-restart = Empezar de nuevo
qr-wrong-number = El número elegido en el móvil no coincide con el que se muestra aquí. Se ha cancelado este inicio de sesión.
qr-second-device = Otro móvil ha escaneado este código. Se ha cancelado este inicio de sesión: si no fuiste tú, puede que alguien haya reenviado tu código de inicio de sesión.
qr-denied = Denegado. Continuando…
qr-approved = Aprobado. Continuando…
passkey-waiting = Esperando a tu llave de acceso…
passkey-signed-in = Sesión iniciada. Continuando…
passkey-failed = No se pudo iniciar sesión con la llave de acceso: { $reason }. Inténtalo de nuevo o escanea el código QR.
passkey-cancelled = cancelado

## La página de consentimiento

consent-title = Permitir el acceso
consent-heading = { $client } quiere acceder a tu cuenta de scanid
consent-logged-in-as = Sesión iniciada como { $name } (@{ $user })
consent-will-receive = { $client } recibirá:
consent-resources = y acceso, en tu nombre, a:
consent-deny = Denegar
consent-allow = Permitir
consent-sent-back = Volverás a { $host }.
consent-agent = { $client } es un agente: si lo permites, también podrá actuar por ti sin superar este acceso, y cada token que use indicará que actúa por ti. Puedes retirarlo en cualquier momento en la app de scanid.
scope-openid = Tus identificadores de scanid (sujeto e ID de servicio)
scope-profile = Tu nombre de usuario, nombre visible, foto de perfil, cuándo cambió tu perfil por última vez y los grupos a los que perteneces
scope-groups = Los grupos a los que perteneces
scope-address = Tu país
scope-offline_access = Acceso mientras no usas la app (acceso sin conexión)
scope-other = Otros datos
claim-name = Tu nombre visible
claim-preferred_username = Tu nombre de usuario
claim-picture = Tu foto de perfil
claim-updated_at = Cuándo cambió tu perfil por última vez

## La página del código de dispositivo (RFC 8628)

device-title = Conectar un dispositivo
device-enter = Introduce el código que muestra tu dispositivo.
device-code = Código
device-continue = Continuar
device-on-phone = ¿Estás en el móvil con tu scanid?
device-approve-in-app = Aprobar en la app scanid
device-then = Después, inicia sesión con la app scanid. Introduce solo un código de un dispositivo que estés configurando tú.
device-not-from-page = Este código no se envió desde esta página (lo envió otro sitio o la página era demasiado antigua). Escribe aquí el código que muestra tu dispositivo.
device-unknown-code = Este código no es válido, ha caducado o ya se usó. Comprueba el código en tu dispositivo o vuelve a empezar allí.
device-connected = Dispositivo conectado
device-connected-text = { $client } ya está conectado a tu cuenta de scanid. Puedes cerrar esta ventana y volver al dispositivo.
device-refused = Dispositivo no conectado
device-refused-text = Has rechazado { $client }: el dispositivo no se ha conectado. Puedes cerrar esta ventana.

## Inicio de sesión (form_post) y cierre de sesión

signing-in-title = Iniciando sesión
signing-in = Iniciando sesión…
continue = Continuar
logout-title = Cerrar sesión
logout-heading = ¿Cerrar sesión en scanid?
logout-button = Cerrar sesión
logged-out-title = Sesión cerrada
logged-out-heading = Has cerrado sesión
logged-out-text = Puedes cerrar esta ventana.

## Páginas de error

error-details = Detalles:
error-request-invalid = Esta solicitud de inicio de sesión no es válida
error-request-invalid-text = La aplicación envió una solicitud de inicio de sesión que scanid no puede aceptar. Vuelve a la aplicación e inténtalo de nuevo; si vuelve a ocurrir, avisa a sus creadores.
error-login-not-found = No se encontró la solicitud de inicio de sesión
error-login-not-found-text = Esta solicitud de inicio de sesión no existe o ha caducado. Vuelve a empezar desde la aplicación.
error-wrong-browser = Navegador equivocado
error-wrong-browser-text = Este inicio de sesión solo se puede completar en el navegador donde empezó.
error-expired = Solicitud de inicio de sesión caducada
error-expired-text = Esta solicitud de inicio de sesión ha caducado. Vuelve a empezar desde la aplicación.
error-completed = Ya completada
error-completed-text = Esta solicitud de inicio de sesión ya se completó. Vuelve a empezar desde la aplicación.
error-not-approved = Aún no aprobada
error-not-approved-text = Primero escanea el código QR con la app scanid y aprueba el inicio de sesión.
error-unknown-app = Aplicación desconocida
error-unknown-app-text = La aplicación que inició este inicio de sesión ya no existe.
error-refused = Solicitud rechazada
error-forged-text = Este formulario no se envió desde la página de consentimiento.
error-no-choice = Elige permitir o denegar
error-no-choice-text = El formulario de consentimiento estaba incompleto.
error-logout-invalid = Solicitud de cierre de sesión no válida
error-logout-repeated-text = Hay un parámetro repetido.
error-logout-invalid-text = scanid no puede atender esta solicitud de cierre de sesión.
error-logout-refused-text = Este cierre de sesión no se confirmó en la página de cierre de sesión de scanid.
error-failed = Algo ha fallado
error-failed-text = Inténtalo de nuevo.
error-unavailable = No disponible temporalmente
error-unavailable-text = scanid no puede completar este paso ahora. Inténtalo de nuevo en un momento.
error-rate-limited = Demasiados intentos de inicio de sesión
error-rate-limited-text = Espera un minuto y vuelve a intentarlo.
