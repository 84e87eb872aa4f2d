#!/usr/bin/env python3
"""Where a burst's first jobs spend their time, on a stack that is already up (not part of the tests).

usage: ALLOT_TOKEN=$(bin/allot login --user bench --admin --print) \
         python3 docs/bench/first-wave.py PEERS_DIR [JOBS [SLEEP_S [BURSTS]]]

With `bin/allot up --nodes 4 --gpus 8` running: one warm-up job, then BURSTS (default 3) bursts of JOBS (40)
one-GPU jobs of SLEEP_S (3) seconds, each burst sent one request after another as the peer harness does
(PEERS_DIR/peerbench.py's job script and marks; the marks file is made writable by the jobs' user). For each
burst, per job and as the p50 of the first 32 (the cluster's GPUs), milliseconds from the job's request to: the
POST's answer, JobAccepted and JobPlaced (the scheduler's step), JobStarted (the node agent) and the job's own
S mark (its command running). The first burst after `up` runs on cold JVMs; the later ones show a warm stack.
"""
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime

peers = sys.argv[1]
jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 40
sleep_s = float(sys.argv[3]) if len(sys.argv) > 3 else 3
bursts = int(sys.argv[4]) if len(sys.argv) > 4 else 3
sys.path.insert(0, peers)
import peerbench as pb  # noqa: E402

work = tempfile.mkdtemp(prefix="allot-first-wave.")
os.chmod(work, 0o777)
marks = os.path.join(work, "marks")
open(marks, "a").close()
os.chmod(marks, 0o666)
tag = "fw%d" % int(time.time())
api = http.client.HTTPConnection("127.0.0.1", int(os.environ.get("ALLOT_BUDGET_PORT", 8081)), timeout=30)


def request(method, path, body=None):
    headers = {"Authorization": "Bearer " + os.environ["ALLOT_TOKEN"]}
    if body is not None:
        headers["Content-Type"] = "application/json"
    api.request(method, path, body=None if body is None else json.dumps(body).encode(), headers=headers)
    answer = api.getresponse()
    return answer.status, answer.read()


def submit(name, sleep):
    # the harness's job: S and E marks around a sleep
    body = {"id": "%s-%s" % (tag, name), "budget": "lab/team-a", "cluster": "local", "replicas": 1,
            "gpusPerReplica": 1, "minRuntimeSeconds": 60, "resumable": False,
            "command": ["sh", "-c", pb.job_script(marks, name, sleep, "ALLOT_REPLICA_INDEX", "ALLOT_NODE_ID")]}
    status, payload = request("POST", "/jobs", body)
    if status != 202:
        sys.exit("POST /jobs %s -> %s: %s" % (name, status, payload[:300]))


for path in ("lab", "lab/team-a"):
    request("PUT", "/budgets/" + path, {"share": 1})


def wait_for(done, limit_s):
    t0 = time.time()
    while time.time() - t0 < limit_s and not done():
        time.sleep(0.05)


submit("w", 0.1)
wait_for(lambda: any(k[0] == "w" for k in pb.read_marks(marks)[1]), 60)


def at(x):
    return datetime.fromisoformat(x.replace("Z", "+00:00")).timestamp()


for burst in range(1, bursts + 1):
    sent = []
    for i in range(jobs):
        t_send = time.time()
        submit("b%d-%d" % (burst, i), sleep_s)
        sent.append((i, t_send, time.time()))
    wait_for(lambda: sum(1 for k in pb.read_marks(marks)[1] if k[0].startswith("b%d-" % burst)) >= jobs,
             sleep_s * (jobs // 32 + 2) + 60)
    starts = pb.read_marks(marks)[0]
    rows = []
    for i, t_send, t_answer in sent:
        status, payload = request("GET", "/jobs/%s-b%d-%d" % (tag, burst, i))
        first = {}
        for h in json.loads(payload).get("history", []) if status == 200 else []:
            first.setdefault(h["type"], at(h["at"]))
        s_mark = starts.get(("b%d-%d" % (burst, i), "0"))

        def ms(x):
            return None if x is None else round((x - t_send) * 1000)
        rows.append((i, round((t_send - sent[0][1]) * 1000), ms(t_answer), ms(first.get("JobAccepted")),
                     ms(first.get("JobPlaced")), ms(first.get("JobStarted")), ms(s_mark)))
    print("burst %d: job, sent at, then ms from its request to: answer, JobAccepted, JobPlaced, JobStarted, S mark"
          % burst)
    for r in rows:
        print(" ", *r)
    p50 = []
    for k, name in ((2, "answer"), (3, "accepted"), (4, "placed"), (5, "started"), (6, "S mark")):
        v = [r[k] for r in rows[:32] if r[k] is not None]
        p50.append("%s %s" % (name, statistics.median(v) if v else "-"))
    print("burst %d, first 32, p50 ms: %s" % (burst, ", ".join(p50)), flush=True)
    time.sleep(sleep_s + 1)
