-- wrk: refresh-token grants, each connection following its own rotating refresh family.
-- Run with as many connections as threads (-t N -c N): a thread's one connection sends a
-- request only after the previous answer, whose new refresh token the next request uses.
-- Thread i starts with line i of TOKENS (a file of refresh tokens); PATH_ and AUTH (the
-- Authorization header) come from the environment. A refused refresh ends the run's validity:
-- wrk counts it as non-2xx, and the script stops that thread.
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local n = 0
  for line in io.lines(os.getenv("TOKENS")) do
    if n == id then token = line end
    n = n + 1
  end
  assert(token, "fewer refresh tokens than threads")
  path, auth = os.getenv("PATH_"), os.getenv("AUTH")
end

function request()
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = auth,
  }, "grant_type=refresh_token&refresh_token=" .. token)
end

function response(status, headers, body)
  local rt = status == 200 and body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if rt then token = rt else wrk.thread:stop() end
end
