# scanid のログインページ（日本語）。en.ftl と同じメッセージとプレースホルダー。

## すべてのページ

brand = scanid
language-label = 言語
language-change = 変更

## ログインページ（QR コード）

qr-title = ログイン
qr-heading = { $client } にログイン
qr-device-client = { $client }（コード { $code }）
qr-scan = scanid アプリでこのコードをスキャンしてログインしてください。
qr-alt = QR コード。次のリンクが含まれています: { $link }
self-registered = { $client } はこのサービスに自身で登録しました。この名前は誰も確認していません。
qr-on-phone = スマートフォンをお使いですか？
qr-open-app = scanid アプリを開く
qr-waiting = アプリを待っています…
qr-passkey = パスキーでサインイン
qr-no-app = アプリをお持ちでないですか？ スマートフォンのカメラでコードをスキャンすると、scanid ウェブアプリが開き、そこで登録できます。
qr-web-app = scanid ウェブアプリを開く
qr-get-app = またはアプリを入手:
qr-pick = scanid アプリで { $number } を選んでください
qr-scanned-pick = スキャンしました。スマートフォンで、ここに表示されている数字を選んでください。
qr-scanned = スキャンしました。スマートフォンで確認してください…
qr-gone = このログインリクエストは無効になりました。
qr-expired = この QR コードは有効期限が切れました。
qr-restart = 最初からやり直す
qr-wrong-number = スマートフォンで選ばれた数字が、ここに表示されている数字と一致しませんでした。このログインはキャンセルされました。
qr-second-device = 別のスマートフォンがこのコードをスキャンしました。このログインはキャンセルされました。心当たりがない場合、誰かがあなたのログインコードを転送した可能性があります。
qr-denied = 拒否しました。続行しています…
qr-approved = 承認しました。続行しています…
passkey-waiting = パスキーを待っています…
passkey-signed-in = サインインしました。続行しています…
passkey-failed = パスキーでのサインインに失敗しました（{ $reason }）。もう一度試すか、QR コードをスキャンしてください。
passkey-cancelled = キャンセルされました

## 同意ページ

consent-title = アクセスを許可
consent-heading = { $client } があなたの scanid アカウントへのアクセスを求めています
consent-logged-in-as = { $name }（@{ $user }）としてログイン中
consent-will-receive = { $client } が受け取る情報:
consent-resources = さらに、あなたとして次へのアクセス:
consent-deny = 拒否
consent-allow = 許可
consent-sent-back = { $host } に戻ります。
consent-agent = { $client } はエージェントです。許可すると、このアクセスの範囲内であなたの代わりに行動できるようになり、使用するすべてのトークンに、あなたの代理として行動していることが記されます。scanid アプリでいつでも取り消せます。
scope-openid = あなたの scanid 識別子（サブジェクトとサービス ID）
scope-profile = ユーザー名、表示名、プロフィール写真、プロフィールの最終更新日時、所属グループ
scope-groups = 所属グループ
scope-address = あなたの国
scope-offline_access = アプリを使っていない間のアクセス（オフラインアクセス）
scope-other = その他のデータ
claim-name = 表示名
claim-preferred_username = ユーザー名
claim-picture = プロフィール写真
claim-updated_at = プロフィールの最終更新日時

## デバイスコードのページ（RFC 8628）

device-title = デバイスを接続
device-enter = デバイスに表示されているコードを入力してください。
device-code = コード
device-continue = 続行
device-on-phone = scanid を入れたスマートフォンをお使いですか？
device-approve-in-app = scanid アプリで承認する
device-then = その後、scanid アプリでログインしてください。ご自身で設定中のデバイスから得たコードだけを入力してください。
device-not-from-page = このコードはこのページから送信されていません（別のサイトから送信されたか、ページが古すぎます）。デバイスに表示されているコードをここに入力してください。
device-unknown-code = このコードは無効、期限切れ、または使用済みです。デバイスのコードを確認するか、デバイスで最初からやり直してください。
device-connected = デバイスを接続しました
device-connected-text = { $client } があなたの scanid アカウントに接続されました。このウィンドウを閉じて、デバイスに戻ってください。
device-refused = デバイスは接続されていません
device-refused-text = { $client } を拒否したため、デバイスは接続されませんでした。このウィンドウを閉じてかまいません。

## サインイン（form_post）とログアウト

signing-in-title = サインイン中
signing-in = サインインしています…
continue = 続行
logout-title = ログアウト
logout-heading = scanid からログアウトしますか？
logout-button = ログアウト
logged-out-title = ログアウトしました
logged-out-heading = ログアウトしました
logged-out-text = このウィンドウを閉じてかまいません。

## エラーページ

error-details = 詳細:
error-request-invalid = このログインリクエストは無効です
error-request-invalid-text = アプリケーションが、scanid が受け付けられないログインリクエストを送信しました。アプリケーションに戻ってもう一度お試しください。何度も起きる場合は、その開発者にお知らせください。
error-login-not-found = ログインリクエストが見つかりません
error-login-not-found-text = このログインリクエストは存在しないか、有効期限が切れています。アプリケーションから最初からやり直してください。
error-wrong-browser = ブラウザーが違います
error-wrong-browser-text = このログインは、開始したブラウザーでのみ完了できます。
error-expired = ログインリクエストの期限切れ
error-expired-text = このログインリクエストは有効期限が切れました。アプリケーションから最初からやり直してください。
error-completed = 完了済み
error-completed-text = このログインリクエストはすでに完了しています。アプリケーションから最初からやり直してください。
error-not-approved = まだ承認されていません
error-not-approved-text = まず scanid アプリで QR コードをスキャンし、ログインを承認してください。
error-unknown-app = 不明なアプリケーション
error-unknown-app-text = このログインを開始したアプリケーションはもう存在しません。
error-refused = リクエストは拒否されました
error-forged-text = このフォームは同意ページから送信されていません。
error-no-choice = 許可か拒否を選んでください
error-no-choice-text = 同意フォームが不完全でした。
error-logout-invalid = 無効なログアウトリクエスト
error-logout-repeated-text = パラメーターが重複しています。
error-logout-invalid-text = scanid はこのログアウトリクエストを処理できません。
error-logout-refused-text = このログアウトは scanid のログアウトページで確認されていません。
error-failed = 問題が発生しました
error-failed-text = もう一度お試しください。
error-unavailable = 一時的に利用できません
error-unavailable-text = scanid は現在この手順を完了できません。しばらくしてからもう一度お試しください。
error-rate-limited = ログインの試行が多すぎます
error-rate-limited-text = 1 分待ってから、もう一度お試しください。
