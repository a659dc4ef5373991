// workload.js -- bench/real/run's deep recursion: mujs runs every call of
// a script function as a recursion of its C interpreter (js_call,
// jsR_callfunction, jsR_run), and JSON.stringify and JSON.parse recurse
// in C over nested values (300 levels: its cycle check makes it
// quadratic).  No exception is thrown: the depth of every
// call is checked against the oracle's.

function down(n) { return n === 0 ? 0 : 1 + down(n - 1); }

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function ack(m, n) {
	if (m === 0) return n + 1;
	if (n === 0) return ack(m - 1, 1);
	return ack(m - 1, ack(m, n - 1));
}

function isEven(n) { return n === 0 ? true : isOdd(n - 1); }
function isOdd(n) { return n === 0 ? false : isEven(n - 1); }

function hanoi(n, from, to, via, moves) {
	if (n === 0) return moves;
	moves = hanoi(n - 1, from, via, to, moves);
	return hanoi(n - 1, via, to, from, moves + 1);
}

function nest(d) { return d === 0 ? [d] : { d: d, inner: nest(d - 1) }; }

function walk(v) { return v.inner ? 1 + walk(v.inner) : 0; }

print("down " + down(3000));
print("fib " + fib(18));
print("ack " + ack(2, 40));
print("even " + isEven(2001));
print("hanoi " + hanoi(10, 1, 3, 2, 0));
var deep = nest(300);
var text = JSON.stringify(deep);
print("json " + text.length);
print("parse " + walk(JSON.parse(text)));
