-- wrk: authorization-code grants, every request with a code of its own. Thread i of N
-- (THREADS) takes lines i, i+N, i+2N, ... of CODES (a file of codes) and stops when they run
-- out (run.sh seeds more than the run needs and says so when they did not last).
-- PATH_, AUTH (the Authorization header) and REDIRECT (form-encoded) come from the environment.
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local threads, n = tonumber(os.getenv("THREADS")), 0
  codes = {}
  for line in io.lines(os.getenv("CODES")) do
    if n % threads == id then codes[#codes + 1] = line end
    n = n + 1
  end
  i = 0
  path, auth = os.getenv("PATH_"), os.getenv("AUTH")
  tail = "&redirect_uri=" .. os.getenv("REDIRECT")
end

function request()
  i = math.min(i + 1, #codes)
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Authorization"] = auth,
  }, "grant_type=authorization_code&code=" .. codes[i] .. tail)
end

function response(status, headers, body)
  if i >= #codes then wrk.thread:stop() end
end
