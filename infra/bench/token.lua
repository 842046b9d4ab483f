-- wrk: POST a client_credentials token request with HTTP Basic client authentication.
-- BASIC (base64 of id:secret) and TOKEN_PATH come from the environment.
wrk.method = "POST"
wrk.path = os.getenv("TOKEN_PATH")
wrk.body = "grant_type=client_credentials" .. (os.getenv("EXTRA") or "")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic " .. os.getenv("BASIC")
