# ++ and op= whose value is used read their variable too, as SystemTap 4.8 counts it:
# only b, written and never read, gets the end-of-run print (stap -p2 agrees)
-p2 -e 'global a, b, c; probe timer.s(1) { if (++a == 2) exit(); b++; println(c += 1) }'
