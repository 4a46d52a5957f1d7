#!/bin/bash
# Brute-forces the spaces one after the other (resumable: rerun after an interruption) and gzips each finished
# cache into cachefiles/<kernel>/pocl_<size>.json.gz. Usage: ./run_queue.sh JOB... with JOB = t1file:cache:kernel:size
cd "$(dirname "$0")"
KT=${KTUNE:-../../build/ktune}
mkdir -p raw logs cachefiles
for job in "$@"; do
  IFS=: read -r t1 cache kernel size <<<"$job"
  start=$(date +%s); load0=$(cut -d' ' -f1 /proc/loadavg)
  echo "$(date -u +%T) start $t1 -> $cache (load $load0)" >> queue.log
  nice -n 19 $KT tune "$t1" --strategy brute_force --cache "raw/$cache" --quiet > "logs/${cache%.json}.out" 2> "logs/${cache%.json}.err"
  rc=$?
  end=$(date +%s)
  echo "$(date -u +%T) done $t1 rc=$rc wall=$((end-start))s load_end=$(cut -d' ' -f1 /proc/loadavg)" >> queue.log
  if [ $rc -eq 0 ]; then
    mkdir -p cachefiles/$kernel && gzip -c "raw/$cache" > cachefiles/$kernel/pocl_$size.json.gz
  fi
done
