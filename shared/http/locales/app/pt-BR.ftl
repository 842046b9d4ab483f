# O app web do scanid, português do Brasil (fiel a en.ftl).

shell-loading = Carregando…
shell-noscript = O app web do scanid precisa de JavaScript. Você também pode baixar o app:
shell-description = Sua identidade scanid: cadastre-se e aprove logins escaneando o QR code deles.

language = Idioma
back = Voltar
cancel = Cancelar
done = Concluir
go-home = Ir para o meu scanid
unknown = desconhecido
details = Detalhes
offline = Não foi possível acessar o serviço. Você está conectado à internet?
failed = Algo deu errado
insecure-title = O scanid precisa de uma conexão segura
insecure-text = Abra esta página por https. O app scanid guarda a chave dele com a criptografia do seu navegador, que só funciona em páginas seguras.

welcome = Boas-vindas! Seu scanid está pronto.
signup-title = Crie seu scanid
signup-intro = Sua identidade fica neste celular: uma chave é criada aqui e nunca sai dele.
signup-name = Nome (seu identificador único)
signup-name-hint = De 3 a 32 caracteres entre a–z, 0–9, ponto, sublinhado e hífen.
display-name = Nome de exibição
signup-country = País (duas letras, por exemplo BR)
signup-country-hint = Código ISO 3166-1, em maiúsculas.
signup-submit = Criar meu scanid
signup-available = “{ $name }” está disponível.
signup-taken = “{ $name }” já está em uso. Escolha outro nome.
signup-check = Confira os campos destacados.
signup-photo-failed = Sua identidade foi criada, mas a foto não foi salva: { $reason }
photo = Foto (câmera ou arquivo)
photo-hint = JPEG, PNG ou WebP, até 1 MB. Opcional.
photo-too-large = Esta foto tem mais de 1 MB; escolha uma menor.
edit-title = Editar perfil
edit-save = Salvar
edit-saved = Perfil salvo.

home-title = Seu scanid
home-identity = Sua identidade
home-service-id = ID de serviço
home-how = Para entrar em algum lugar, escaneie o QR code da página de login com a câmera do celular. O link abre aqui.
home-manage = Gerenciar
home-activity = Logins recentes
home-keys = Chaves e chaves de acesso
home-agents = Agentes que agem por você
home-rotate = Substituir a chave do dispositivo
home-sign-out = Sair de todos os lugares
home-delete = Excluir identidade

keys-upgrade = Usar uma chave de acesso neste celular
keys-add = Adicionar uma chave de acesso
keys-upgrade-why = Com uma chave de acesso, toda aprovação pede sua digital, seu rosto ou seu PIN: quem estiver com seu celular desbloqueado não consegue aprovar por você. Sua chave atual transfere tudo para a chave de acesso e depois é desativada.
keys-last-used = Último uso em { $when }
keys-last-used-from = Último uso em { $when }, de { $place }
keys-not-used = Ainda não usada
keys-removed = A chave foi removida.
keys-remove = Remover
keys-remove-confirm = Sim, remover
keys-remove-sign-out = Foi perdida ou pode ter sido copiada: sair também de todos os lugares
keys-last-key = Esta é sua última chave: adicione outra antes de removê-la.
keys-this-phone = (este celular)
keys-passkey = Chave de acesso
passkey-name = Este celular
keys-passkey-level = Adicionada com a chave do dispositivo: os logins dela contam como os da chave do dispositivo (sem nível de digital, rosto ou PIN).
keys-device-key = Chave do dispositivo
keys-device-key-note = Assina sem pedir o desbloqueio

rotate-text = Uma nova chave é criada neste celular. A chave antiga transfere tudo para ela e para de funcionar na hora.
rotate-also = Sair também de todos os lugares
rotate-also-hint = Encerra todos os logins feitos com o scanid: cada app e site pede que você entre de novo. Escolha esta opção se outra pessoa pode ter ficado com seu celular.
rotate-confirm = Substituir a chave
rotate-done = Uma nova chave do dispositivo está ativa; a antiga não funciona mais.
rotate-done-everywhere = Uma nova chave do dispositivo está ativa; a antiga não funciona mais, e você saiu de todos os lugares.
sign-out-text = Encerra todos os logins feitos com o scanid, em todos os dispositivos: cada app e site é avisado e pede que você entre de novo. Suas chaves continuam como estão.
sign-out-lost = Um celular ou uma chave de acesso foi perdido ou pode ter sido copiado? Remova-o em “Chaves e chaves de acesso” (que também oferece esta opção) e depois saia de todos os lugares.
signed-out = { $count ->
    [one] Você saiu de todos os lugares: { $count } sessão encerrada, e cada app e site vai pedir que você entre de novo.
   *[other] Você saiu de todos os lugares: { $count } sessões encerradas, e cada app e site vai pedir que você entre de novo.
}
delete-text = Isto exclui sua identidade scanid no serviço: seu perfil e sua foto, seus logins em todos os lugares e a chave deste celular. Seu nome fica livre para outras pessoas. Não é possível desfazer.
delete-label = Digite seu nome ({ $name }) para confirmar
delete-mismatch = Digite seu nome, { $name }, para confirmar.
delete-confirm = Excluir minha identidade
delete-done = Sua identidade foi excluída. Você pode criar uma nova.

activity-none = Nenhum login ainda.
activity-approved = aprovado
activity-denied = recusado
activity-refused = bloqueado (o aplicativo não permite)
activity-wrong-number = cancelado (foi escolhido um número errado)
activity-second-device = cancelado (um segundo celular escaneou o código)
activity-sso = já conectado: sem escanear
activity-from = de { $place } · { $browser }
activity-unknown-browser = navegador desconhecido
activity-reported = Informado como “não fui eu”.
activity-not-me = Não fui eu
activity-ask = Encerrar este login em { $client }? O acesso dele é revogado na hora e { $client } é avisado.
activity-yes = Sim, encerrar
activity-done-session = Pronto: o login em { $client } foi encerrado e o acesso dele foi revogado.
activity-done-tokens = Pronto: o acesso desse login a { $client } foi revogado (a sessão já tinha terminado).
activity-done-nothing = Informado. Não havia sessão nem acesso desse login para encerrar.

place-unknown = endereço desconhecido
place-network = rede { $network }
where-started-from = Iniciado de
where-this-phone = Este celular
where-asked-at = Pedido em
where-warning = Atenção:
flag-location-mismatch = Foi iniciado em outro país, diferente do país onde este celular está.
flag-first-from-here = Você nunca aprovou um login vindo desse lugar.
flag-high-usage = Muitos logins foram pedidos para sua identidade na última hora.
where-refused = { $client } não permite um login com estes avisos: ele não pode ser aprovado.
where-deny-it = Recuse-o.

scan-reading = Lendo o código…
scan-expired = Este código expirou
scan-gone = O login não está mais esperando, ou o código era antigo. Escaneie de novo o código da página de login.
scan-new = { $client } pede que você entre com o scanid. Ainda não há um scanid neste celular: crie um e depois aprove.
code-not-waiting = Este código não está esperando
code-invalid = O código não é válido, expirou ou já foi usado. Comece de novo no dispositivo.

scope-openid = Seus identificadores do scanid (sujeito e ID de serviço)
scope-profile = Seu nome de usuário, nome de exibição, foto de perfil, quando seu perfil mudou pela última vez e os grupos de que você faz parte
scope-groups = Os grupos de que você faz parte
scope-address = Seu país
scope-offline-access = Acesso enquanto você não está usando o app (acesso off-line)
login-title = Entrar em { $client }?
connect-title = Conectar { $client }?
asks-for = { $client } pede:
asks-for-at = { $client } em { $host } pede:
an-app = um app
resources = e acesso, em seu nome, a:
self-registered = { $client } se registrou sozinho neste serviço: ninguém verificou esse nome.
approve-as = Como { $user } · até { $time }
agent = { $browser } no { $os }
started-here = Iniciado neste celular.
started-elsewhere = Este login foi iniciado em outro dispositivo.
address = Endereço
browser = Navegador
approve-only-if = Aprove apenas se foi você que iniciou este login, agora mesmo, em uma tela à sua frente. Se alguém enviou este código para você, recuse.
device-check = Confira se o dispositivo mostra este código:
device-address = O endereço do dispositivo
device-calls-itself = O dispositivo se identifica como (informação dele, não verificada)
device-notice = Um código de dispositivo é um pedido feito por um dispositivo. Aprove apenas se você estiver com esse dispositivo na mão (ou à sua frente) e ele mostrar este código. Ninguém precisa que você aprove um código que enviou, leu para você ou pediu que você digitasse: se foi assim que você o recebeu, recuse.
device-differ = Se os códigos forem diferentes, recuse.
pick = Escolha o número que aparece na tela de login:
pick-passkey = Depois, seu celular vai pedir sua digital, seu rosto ou o bloqueio de tela para aprovar.
number-here = Iniciado neste navegador: a página de login dele mostrou { $number }.
arming = Os botões só funcionam um instante depois que esta tela aparece, para que um toque sem querer não aprove nada.
approve = Aprovar
deny = Recusar
approved-title = Login aprovado
denied-title = Login recusado
cancelled-title = Login cancelado
approved-text = Você está entrando em { $client }. Continue na tela onde você começou.
approved-device = { $client } está conectado. Continue no dispositivo.
denied-text = { $client } foi avisado de que você recusou.
refused = { $client } não permite este login: { $reason }. Ele foi cancelado.
not-waiting = Este login não está mais esperando (expirou ou já foi decidido). Escaneie o código de novo.

# The agents acting for the person (token exchange)
agents-text = Aplicativos que você permitiu agir por você em outros lugares, sem ultrapassar o acesso que você deu. Retire um e ele deixa de agir por você na hora.
agents-none = Nenhum agente age por você.
agents-since = Permitido { $when }
agents-scopes = Pode usar: { $scopes }
agents-resources = Em: { $resources }
agents-withdraw = Retirar
agents-ask = Impedir que { $client } aja por você? O acesso dele em seu nome termina na hora, e o próximo login vai perguntar de novo.
agents-withdrawn = Retirado: { $client } não pode mais agir por você.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Pedidos esperando por você
waiting-none = Nenhum pedido está esperando por você.
waiting-open = Abrir
waiting-asked = Pedido às { $time }
waiting-gone = Este pedido não está mais esperando (expirou ou já foi decidido).
binding-message = Quem pede deve mostrar a você exatamente esta mensagem:
binding-none = Este pedido veio sem mensagem para comparar.
binding-check = Aprove somente se você está lidando com este aplicativo agora (em uma ligação, em um caixa, com seu agente) e o que ele mostra confere. Se você não esperava este pedido, recuse.
approve-agent = { $client } é um agente: se você permitir, ele também poderá agir por você sem ultrapassar este acesso, e cada token que ele usar dirá que ele age por você. Você pode retirar isso a qualquer momento no app scanid.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Notificações
push-text = Receba uma notificação neste celular quando alguém pedir por você pelo canal de retorno: uma central de atendimento, um caixa ou um agente. Ela diz apenas que há uma solicitação esperando.
push-is-on = As notificações estão ativadas neste celular.
push-is-off = As notificações estão desativadas: abra o app para ver as solicitações pendentes.
push-turn-on = Ativar notificações
push-turn-off = Desativar notificações
push-now-on = Notificações ativadas.
push-now-off = Notificações desativadas.
push-blocked = As notificações estão bloqueadas para este app. Permita-as nas configurações do site no seu navegador e tente de novo.
push-notice-title = Uma solicitação espera por você
push-notice-body = Abra o scanid para ver quem está pedindo e aprove ou recuse.
