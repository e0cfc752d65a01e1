#!/bin/bash
# gen-script.sh N - prints a SystemTap script of about N lines that exercises the front
# end the way real scripts do: globals, arrays with tuple keys, statistics, functions
# calling functions, timers, foreach with sorting, printf. Deterministic.
n=${1:-500}
blocks=$(( (n - 6 + 21) / 22 ))  # 22 lines a block, 6 around them
echo "global total, hits[64], lat, names"
for i in $(seq 1 "$blocks"); do
cat <<STP
function score_$i:long (a:long, b:string) {
	if (a > $i && strlen(b) > 0)
		return a * $i + strlen(b)
	else
		return a - $i
}
probe timer.ms($(( i * 10 ))) {
	total += score_$i(total, "b$i")
	hits[cpu(), "t$i"]++
	lat <<< total % $(( i + 7 ))
	names[$i] = sprintf("probe %d: %s", $i, execname())
	for (k = 0; k < 3; k++)
		total = total ^ (k << $(( i % 5 )))
}
probe timer.us($(( i * 1000 + 500 ))).randomize(100) {
	foreach ([c, t] in hits- limit 5)
		if (t == "t$i" && c >= 0)
			total++
	x = total > 100 ? "big" : "small"
	if (x == "big" && !([0, "t$i"] in hits))
		delete hits
}
STP
done
cat <<STP
probe end {
	printf("%d %d %d\n", total, @count(lat), @avg(lat))
	print(@hist_log(lat))
	foreach (k in names+) println(names[k])
}
STP
