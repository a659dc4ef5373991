-- The Lua workload of bench/real/run: recursion in Lua and in C (nested
-- pcall, gsub callbacks, sort comparators), errors caught by pcall (the
-- interpreter's longjmp), coroutines, string building and tables.  Prints
-- one line per part; the output must not change when traced.

local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
print("fib", fib(18))

-- Each level is a C call (pcall -> luaD_call -> luaV_execute): deep C stack.
local function deep(n)
  if n == 0 then return 0 end
  local ok, v = pcall(deep, n - 1)
  return v + 1
end
print("deep", deep(150))

-- Errors thrown at depth and caught: longjmp through C frames.
local caught = 0
for i = 1, 500 do
  local ok, msg = pcall(function(k)
    if k % 3 == 0 then error("bad " .. k) end
    return string.rep("x", k % 7)
  end, i)
  if not ok then caught = caught + 1 end
end
print("errors", caught)

local t = {}
for i = 1, 4000 do t[i] = (i * 7919) % 10007 end
table.sort(t, function(a, b) return a > b end)
print("sort", t[1], t[#t], t[2000])

local s = string.rep("hello world ", 500)
local n = 0
s = s:gsub("(%w+)", function(w) n = n + 1; return w:upper() end)
print("gsub", n, #s, s:sub(1, 11))

local co = coroutine.wrap(function()
  for i = 1, 1000 do coroutine.yield(i * i) end
end)
local sum = 0
for _ = 1, 1000 do sum = sum + co() end
print("coroutine", sum)

local words = {}
for i = 1, 1500 do words[#words + 1] = string.format("%05d:%x", i, i * 31) end
local joined = table.concat(words, ",")
local h = 0
for i = 1, #joined, 7 do h = (h * 31 + joined:byte(i)) % 1000003 end
print("format", #joined, h)

local m = {}
for i = 1, 1000 do m["k" .. i] = {i, tostring(i), {i}} end
local c = 0
for k, v in pairs(m) do c = c + v[1] + #v[2] end
print("tables", c)
