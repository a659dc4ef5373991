# first-minus-later.awk -- how much longer a function's first call is than
# its later ones, from lines "FUNCTION TIMESTAMP DURATION" sorted by
# function, then time: for each function, its first duration minus the
# median of its later ones; printed: the median of that over the
# functions, an integer.  Variables (awk -v): functions, the number of
# functions expected; calls, the number of calls each must have (0: at
# least 5).  Exits 1, printing why, on any other count.  Used by
# tests/durations.sh and bench/firstcall.

function median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function flush(    i) {
	if (fn == "")
		return
	if (calls ? n != calls : n < 5) {
		print "calls of " fn ": " n
		bad = 1
	}
	delete later
	for (i = 2; i <= n; i++)
		later[i - 1] = d[i]
	diff[++nf] = d[1] - median(later, n - 1)
}

$1 != fn { flush(); fn = $1; n = 0 }
{ d[++n] = $3 }
END {
	flush()
	if (nf != functions || bad) {
		print "expected " functions " functions, found " nf
		exit 1
	}
	print int(median(diff, nf))
}
