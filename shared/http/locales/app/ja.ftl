# scanid ウェブアプリ、日本語（en.ftl と同じメッセージ）。

shell-loading = 読み込み中…
shell-noscript = scanid ウェブアプリには JavaScript が必要です。アプリを入手することもできます:
shell-description = あなたの scanid ID：登録して、QR コードをスキャンしてログインを承認します。

language = 言語
back = 戻る
cancel = キャンセル
done = 完了
go-home = 自分の scanid へ
unknown = 不明
details = 詳細
offline = サービスに接続できません。オンラインになっていますか？
failed = 問題が発生しました
insecure-title = scanid には安全な接続が必要です
insecure-text = このページを https で開いてください。scanid アプリはブラウザーの暗号機能で鍵を保管しますが、この機能は安全なページでしか動きません。

welcome = ようこそ！scanid の準備ができました。
signup-title = scanid を作成
signup-intro = あなたの ID はこのスマートフォンにあります。鍵はここで作られ、外に出ることはありません。
signup-name = 名前（あなただけのハンドル）
signup-name-hint = a–z、0–9、ピリオド、アンダースコア、ハイフンで 3〜32 文字。
display-name = 表示名
signup-country = 国（2 文字、例：JP）
signup-country-hint = ISO 3166-1 コード（大文字）。
signup-submit = scanid を作成
signup-available = 「{ $name }」は使用できます。
signup-taken = 「{ $name }」は使用されています。別の名前を選んでください。
signup-check = 強調表示された項目を確認してください。
signup-photo-failed = ID は作成されましたが、写真は保存されませんでした：{ $reason }
photo = 写真（カメラまたはファイル）
photo-hint = JPEG、PNG、WebP、1 MB まで。任意。
photo-too-large = この写真は 1 MB を超えています。小さい写真を選んでください。
edit-title = プロフィールを編集
edit-save = 保存
edit-saved = プロフィールを保存しました。

home-title = あなたの scanid
home-identity = あなたの ID
home-service-id = サービス ID
home-how = どこかにログインするには、そのログインページの QR コードをスマートフォンのカメラでスキャンします。リンクはここで開きます。
home-manage = 管理
home-activity = 最近のログイン
home-keys = 鍵とパスキー
home-agents = あなたの代わりに行動するエージェント
home-rotate = デバイスの鍵を交換
home-sign-out = すべてからログアウト
home-delete = ID を削除

keys-upgrade = このスマートフォンでパスキーを使う
keys-add = パスキーを追加
keys-upgrade-why = パスキーを使うと、承認のたびに指紋、顔、または PIN が求められます。ロック解除されたスマートフォンを手にした人でも、あなたの代わりに承認できません。現在の鍵がパスキーに引き継ぎ、その後は使われなくなります。
keys-last-used = 最終使用：{ $when }
keys-last-used-from = 最終使用：{ $when }（{ $place } から）
keys-not-used = まだ使われていません
keys-removed = 鍵を削除しました。
keys-remove = 削除
keys-remove-confirm = 削除する
keys-remove-sign-out = なくした、またはコピーされたおそれがある：すべてからログアウトもする
keys-last-key = これが最後の鍵です。削除する前に別の鍵を追加してください。
keys-this-phone = （このスマートフォン）
keys-passkey = パスキー
passkey-name = このスマートフォン
keys-passkey-level = デバイスの鍵で追加：このパスキーのログインはデバイスの鍵と同じ扱いです（指紋・顔・PIN のレベルなし）。
keys-device-key = デバイスの鍵
keys-device-key-note = ロック解除を求めずに署名します

rotate-text = このスマートフォンで新しい鍵が作られます。古い鍵が新しい鍵に引き継ぎ、すぐに使えなくなります。
rotate-also = すべてからログアウトもする
rotate-also-hint = scanid で行ったすべてのログインを終了します。各アプリやサイトで再ログインが必要になります。ほかの人があなたのスマートフォンを持っていたおそれがあるときに選んでください。
rotate-confirm = 鍵を交換
rotate-done = 新しいデバイスの鍵になりました。古い鍵はもう使えません。
rotate-done-everywhere = 新しいデバイスの鍵になりました。古い鍵はもう使えず、すべてからログアウトしました。
sign-out-text = scanid で行ったすべてのログインを、すべてのデバイスで終了します。各アプリやサイトに通知され、再ログインが必要になります。鍵はそのままです。
sign-out-lost = スマートフォンやパスキーをなくした、またはコピーされたおそれがありますか？「鍵とパスキー」で削除してから（そこでもこの操作ができます）、すべてからログアウトしてください。
signed-out = { $count ->
   *[other] すべてからログアウトしました：{ $count } 件のセッションを終了しました。各アプリやサイトで再ログインが必要です。
}
delete-text = サービス上のあなたの scanid ID を削除します：プロフィールと写真、すべてのログイン、このスマートフォンの鍵。あなたの名前はほかの人が使えるようになります。元に戻せません。
delete-label = 確認のため名前（{ $name }）を入力
delete-mismatch = 確認のため、名前 { $name } を入力してください。
delete-confirm = ID を削除する
delete-done = ID を削除しました。新しく作成できます。

activity-none = まだログインはありません。
activity-approved = 承認
activity-denied = 拒否
activity-refused = 不許可（アプリケーションが許可していません）
activity-wrong-number = キャンセル（違う数字が選ばれました）
activity-second-device = キャンセル（2 台目のスマートフォンがスキャンしました）
activity-sso = ログイン済み：スキャンなし
activity-from = { $place } から · { $browser }
activity-unknown-browser = 不明なブラウザー
activity-reported = 自分ではないと報告済み。
activity-not-me = 自分ではない
activity-ask = { $client } へのこのログインを終了しますか？アクセスはすぐに取り消され、{ $client } に通知されます。
activity-yes = はい、終了する
activity-done-session = 完了：{ $client } のそのログインを終了し、アクセスを取り消しました。
activity-done-tokens = 完了：そのログインの { $client } へのアクセスを取り消しました（セッションはすでに終了していました）。
activity-done-nothing = 報告しました。そのログインで終了すべきセッションやアクセスは見つかりませんでした。

place-unknown = 不明なアドレス
place-network = ネットワーク { $network }
where-started-from = 開始元
where-this-phone = このスマートフォン
where-asked-at = 要求日時
where-warning = 警告：
flag-location-mismatch = このスマートフォンがある国とは別の国で開始されました。
flag-first-from-here = その場所からのログインを承認したことはありません。
flag-high-usage = この 1 時間に、あなたの ID へのログインが多数要求されました。
where-refused = { $client } はこれらの警告があるログインを許可していません。承認できません。
where-deny-it = 拒否してください。

scan-reading = コードを読み取っています…
scan-expired = このコードは期限切れです
scan-gone = ログインはもう待機していないか、コードが古いものでした。ログインページのコードをもう一度スキャンしてください。
scan-new = { $client } が scanid でのログインを求めています。このスマートフォンにはまだ scanid がありません。作成してから承認してください。
code-not-waiting = このコードは待機していません
code-invalid = コードが無効か、期限切れか、使用済みです。デバイスでやり直してください。

scope-openid = あなたの scanid 識別子（サブジェクトとサービス ID）
scope-profile = ユーザー名、表示名、プロフィール写真、プロフィールの最終更新日時、所属グループ
scope-groups = 所属グループ
scope-address = あなたの国
scope-offline-access = アプリを使っていないときのアクセス（オフラインアクセス）
login-title = { $client } にログインしますか？
connect-title = { $client } を接続しますか？
asks-for = { $client } が次を求めています：
asks-for-at = { $host } の { $client } が次を求めています：
an-app = アプリ
resources = さらに、あなたとして次へのアクセス：
self-registered = { $client } はこのサービスに自分で登録しました。この名前は誰も確認していません。
approve-as = { $user } として · { $time } まで
agent = { $os } の { $browser }
started-here = このスマートフォンで開始されました。
started-elsewhere = このログインは別のデバイスで開始されました。
address = アドレス
browser = ブラウザー
approve-only-if = このログインを今、目の前の画面で自分で開始した場合にのみ承認してください。誰かからこのコードが送られてきた場合は、拒否してください。
device-check = デバイスにこのコードが表示されていることを確認してください：
device-address = デバイスのアドレス
device-calls-itself = デバイスの自称（未確認）
device-notice = デバイスコードは、デバイスからの要求です。そのデバイスを手に持っている（または目の前にある）うえで、このコードが表示されている場合にのみ承認してください。送られてきた、読み上げられた、入力するよう頼まれたコードを承認する必要は誰にもありません。そうして受け取ったなら拒否してください。
device-differ = コードが違う場合は拒否してください。
pick = ログイン画面に表示されている数字を選んでください：
pick-passkey = そのあと、承認のためにスマートフォンが指紋、顔、または画面ロックを求めます。
number-here = このブラウザーで開始：そのログインページには { $number } が表示されていました。
arming = 誤ってタップして承認しないよう、ボタンはこの画面が表示されて少し経ってから使えるようになります。
approve = 承認
deny = 拒否
approved-title = ログインを承認しました
denied-title = ログインを拒否しました
cancelled-title = ログインはキャンセルされました
approved-text = { $client } にログインしています。開始した画面で続けてください。
approved-device = { $client } が接続されました。デバイスで続けてください。
denied-text = あなたが拒否したことを { $client } に伝えました。
refused = { $client } はこのログインを許可していません：{ $reason }。キャンセルされました。
not-waiting = このログインはもう待機していません（期限切れか、決定済みです）。コードをもう一度スキャンしてください。

# The agents acting for the person (token exchange)
agents-text = ほかの場所であなたの代わりに行動することを許可したアプリです。許可した範囲を超えることはありません。取り消すと、すぐにあなたの代わりに行動できなくなります。
agents-none = あなたの代わりに行動しているエージェントはありません。
agents-since = { $when } に許可
agents-scopes = 使用できる情報: { $scopes }
agents-resources = 対象: { $resources }
agents-withdraw = 取り消す
agents-ask = { $client } があなたの代わりに行動するのを止めますか？あなたの代理としてのアクセスはすぐに終わり、次回のログインで再び確認されます。
agents-withdrawn = 取り消しました: { $client } はもうあなたの代わりに行動できません。

# Requests waiting for the person (OpenID CIBA)
waiting-title = あなたを待っているリクエスト
waiting-none = あなたを待っているリクエストはありません。
waiting-open = 開く
waiting-asked = { $time } に依頼
waiting-gone = このリクエストはもう待機していません（期限が切れたか、すでに決定されました）。
binding-message = 依頼している相手は、これとまったく同じメッセージをあなたに見せているはずです:
binding-none = このリクエストには照合するメッセージがありません。
binding-check = 今まさにこのアプリケーションとやり取りしていて（通話中、レジで、あなたのエージェントと）、表示されている内容が一致する場合にだけ承認してください。このリクエストに心当たりがなければ、拒否してください。
approve-agent = { $client } はエージェントです。許可すると、このアクセスの範囲内であなたの代わりに行動できるようになり、使用するすべてのトークンに、あなたの代理として行動していることが記されます。scanid アプリでいつでも取り消せます。

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = 通知
push-text = コールセンター、レジ、エージェントなどがバックチャネルであなたに確認を求めたとき、この電話に通知します。通知には、リクエストが待っていることだけが書かれます。
push-is-on = この電話では通知がオンです。
push-is-off = 通知はオフです。待っているリクエストはアプリを開くと表示されます。
push-turn-on = 通知をオンにする
push-turn-off = 通知をオフにする
push-now-on = 通知をオンにしました。
push-now-off = 通知をオフにしました。
push-blocked = このアプリの通知はブロックされています。ブラウザのサイト設定で許可してから、もう一度お試しください。
push-notice-title = リクエストがあなたを待っています
push-notice-body = scanid を開いて誰からか確認し、承認または拒否してください。
