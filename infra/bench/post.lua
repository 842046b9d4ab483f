-- wrk: POST the same form to PATH with an Authorization header (a client_credentials token
-- request, or an introspection), or GET PATH with it when BODY is empty (userinfo).
-- PATH, AUTH (the whole header value) and BODY come from the environment.
local body = os.getenv("BODY") or ""
wrk.method = body == "" and "GET" or "POST"
wrk.path = os.getenv("PATH_")
wrk.body = body ~= "" and body or nil
if body ~= "" then wrk.headers["Content-Type"] = "application/x-www-form-urlencoded" end
wrk.headers["Authorization"] = os.getenv("AUTH")
