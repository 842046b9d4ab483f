# As páginas de login do scanid em português do Brasil. As mesmas mensagens e marcadores de en.ftl.

## Todas as páginas

brand = scanid
language-label = Idioma
language-change = Mudar

## A página de login (o código QR)

qr-title = Entrar
qr-heading = Entrar em { $client }
qr-device-client = { $client } (código { $code })
qr-scan = Escaneie este código com o app scanid para entrar.
qr-alt = Código QR. Ele contém este link: { $link }
self-registered = { $client } se registrou sozinho neste serviço: ninguém verificou esse nome.
qr-on-phone = Está no celular?
qr-open-app = Abrir o app scanid
qr-waiting = Aguardando o app…
qr-passkey = Entrar com uma chave de acesso
qr-no-app = Ainda não tem o app? Escaneie o código com a câmera do celular: ele abre o app web do scanid, onde você se cadastra.
qr-web-app = Abrir o app web do scanid
qr-get-app = Ou baixe o app:
qr-pick = Escolha { $number } no app scanid
qr-scanned-pick = Escaneado. No celular, escolha o número mostrado aqui.
qr-scanned = Escaneado. Confirme no celular…
qr-gone = Este pedido de login não é mais válido.
qr-expired = Este código QR expirou.
qr-restart = Começar de novo
qr-wrong-number = O número escolhido no celular não é o mesmo mostrado aqui. Este login foi cancelado.
qr-second-device = Um segundo celular escaneou este código. Este login foi cancelado: se não foi você, alguém pode ter encaminhado seu código de login.
qr-denied = Recusado. Continuando…
qr-approved = Aprovado. Continuando…
passkey-waiting = Aguardando sua chave de acesso…
passkey-signed-in = Você entrou. Continuando…
passkey-failed = Não foi possível entrar com a chave de acesso: { $reason }. Tente de novo ou escaneie o código QR.
passkey-cancelled = cancelado

## A página de consentimento

consent-title = Permitir acesso
consent-heading = { $client } quer acessar sua conta scanid
consent-logged-in-as = Conectado como { $name } (@{ $user })
consent-will-receive = { $client } vai receber:
consent-resources = e acesso, em seu nome, a:
consent-deny = Recusar
consent-allow = Permitir
consent-sent-back = Você vai voltar para { $host }.
consent-agent = { $client } é um agente: se você permitir, ele também poderá agir por você sem ultrapassar este acesso, e cada token que ele usar dirá que ele age por você. Você pode retirar isso a qualquer momento no app scanid.
scope-openid = Seus identificadores do scanid (sujeito e ID de serviço)
scope-profile = Seu nome de usuário, nome de exibição, foto de perfil, quando seu perfil mudou pela última vez e os grupos de que você faz parte
scope-groups = Os grupos de que você faz parte
scope-address = Seu país
scope-offline_access = Acesso enquanto você não usa o app (acesso offline)
scope-other = Outros dados
claim-name = Seu nome de exibição
claim-preferred_username = Seu nome de usuário
claim-picture = Sua foto de perfil
claim-updated_at = Quando seu perfil mudou pela última vez

## A página do código do dispositivo (RFC 8628)

device-title = Conectar um dispositivo
device-enter = Digite o código que seu dispositivo mostra.
device-code = Código
device-continue = Continuar
device-on-phone = Está no celular com seu scanid?
device-approve-in-app = Aprovar no app scanid
device-then = Depois, entre com o app scanid. Só digite um código de um dispositivo que você mesmo está configurando.
device-not-from-page = Este código não foi enviado por esta página (outro site o enviou, ou a página era antiga demais). Digite aqui o código que seu dispositivo mostra.
device-unknown-code = Este código não é válido, expirou ou já foi usado. Confira o código no dispositivo ou comece de novo por lá.
device-connected = Dispositivo conectado
device-connected-text = { $client } agora está conectado à sua conta scanid. Você pode fechar esta janela e voltar ao dispositivo.
device-refused = Dispositivo não conectado
device-refused-text = Você recusou { $client }: o dispositivo não foi conectado. Você pode fechar esta janela.

## Entrando (form_post) e saindo

signing-in-title = Entrando
signing-in = Entrando…
continue = Continuar
logout-title = Sair
logout-heading = Sair do scanid?
logout-button = Sair
logged-out-title = Você saiu
logged-out-heading = Você saiu da sua conta
logged-out-text = Você pode fechar esta janela.

## Páginas de erro

error-details = Detalhes:
error-request-invalid = Este pedido de login não é válido
error-request-invalid-text = O aplicativo enviou um pedido de login que o scanid não pode aceitar. Volte ao aplicativo e tente de novo; se continuar acontecendo, avise quem o desenvolve.
error-login-not-found = Pedido de login não encontrado
error-login-not-found-text = Este pedido de login não existe ou expirou. Comece de novo pelo aplicativo.
error-wrong-browser = Navegador errado
error-wrong-browser-text = Este login só pode ser concluído no navegador em que começou.
error-expired = Pedido de login expirado
error-expired-text = Este pedido de login expirou. Comece de novo pelo aplicativo.
error-completed = Já concluído
error-completed-text = Este pedido de login já foi concluído. Comece de novo pelo aplicativo.
error-not-approved = Ainda não aprovado
error-not-approved-text = Primeiro escaneie o código QR com o app scanid e aprove o login.
error-unknown-app = Aplicativo desconhecido
error-unknown-app-text = O aplicativo que começou este login não existe mais.
error-refused = Pedido recusado
error-forged-text = Este formulário não foi enviado pela página de consentimento.
error-no-choice = Escolha permitir ou recusar
error-no-choice-text = O formulário de consentimento estava incompleto.
error-logout-invalid = Pedido de saída inválido
error-logout-repeated-text = Um parâmetro está repetido.
error-logout-invalid-text = O scanid não pode atender este pedido de saída.
error-logout-refused-text = Esta saída não foi confirmada na página de saída do scanid.
error-failed = Algo deu errado
error-failed-text = Tente de novo.
error-unavailable = Indisponível no momento
error-unavailable-text = O scanid não consegue concluir esta etapa agora. Tente de novo daqui a pouco.
error-rate-limited = Tentativas de login demais
error-rate-limited-text = Aguarde um minuto e tente de novo.
