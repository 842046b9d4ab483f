-- wrk: FAPI 2.0 token requests (client_credentials), each with a client assertion and a DPoP
-- proof of its own. Thread i of N (THREADS) takes lines i, i+N, ... of LINES (a file of
-- "client_assertion dpop_proof" lines, signed by assertions.mjs) and stops when they run out.
-- PATH_ and EXTRA (more form fields, e.g. "&resource=...") come from the environment.
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  local threads, n = tonumber(os.getenv("THREADS")), 0
  pairs_ = {}
  for line in io.lines(os.getenv("LINES")) do
    if n % threads == id then
      local a, p = line:match("^(%S+) (%S+)$")
      pairs_[#pairs_ + 1] = { a, p }
    end
    n = n + 1
  end
  i = 0
  path = os.getenv("PATH_")
  head = "grant_type=client_credentials&client_assertion_type="
    .. "urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion="
  extra = os.getenv("EXTRA") or ""
end

function request()
  i = math.min(i + 1, #pairs_)
  return wrk.format("POST", path, {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["DPoP"] = pairs_[i][2],
  }, head .. pairs_[i][1] .. extra)
end

function response(status, headers, body)
  if i >= #pairs_ then wrk.thread:stop() end
end
