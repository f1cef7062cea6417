-- Loaded by bench/wrk.ts: cycles through the paths given after "--" (pre-formatted, so building
-- requests costs nothing during the run) and prints the results as one JSON line. The arguments may
-- start with "--method M --body B": every request then has that method and body.
local requests = {}
local n = 0

function init(args)
  local method, body, first = nil, nil, 1
  if args[1] == "--method" then
    method, body, first = args[2], args[4], 5
  end
  for i = first, #args do
    requests[#requests + 1] = wrk.format(method, args[i], nil, body)
  end
end

function request()
  n = n % #requests + 1
  return requests[n]
end

function done(summary, latency)
  -- 1,000 quantiles in microseconds: enough to merge several runs into exact-enough percentiles.
  local quantiles = {}
  for i = 1, 1000 do
    quantiles[i] = latency:percentile(i / 10)
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"failures":%d,"quantilesUs":[%s]}\n',
    summary.requests,
    summary.duration,
    e.status + e.connect + e.read + e.write + e.timeout,
    table.concat(quantiles, ',')
  ))
end
