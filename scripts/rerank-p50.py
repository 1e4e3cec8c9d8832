#!/usr/bin/env python3
"""p50 of /v1/rerank for N one-sentence documents (about 20 words each) against
as2 serve BINARY with the built-in model: 12 requests, the first 2 dropped.

    scripts/rerank-p50.py ./as2 100
"""
import json,subprocess,sys,time,urllib.request,statistics,os,signal,socket
binary=sys.argv[1]; n=int(sys.argv[2])
s=socket.socket(); s.bind(('127.0.0.1',0)); port=s.getsockname()[1]; s.close()
p=subprocess.Popen([binary,'serve','--addr',f'127.0.0.1:{port}'],stderr=subprocess.DEVNULL)
for _ in range(100):
    try: urllib.request.urlopen(f'http://127.0.0.1:{port}/readyz'); break
    except Exception: time.sleep(0.2)
docs=[f"The Berlin Wall fell on 9 November {1900+i%100} when crowds crossed into the west of the city number {i}." for i in range(n)]
body=json.dumps({"model":"builtin","query":"when did the berlin wall fall?","documents":docs}).encode()
ts=[]
for i in range(12):
    t=time.time(); urllib.request.urlopen(urllib.request.Request(f'http://127.0.0.1:{port}/v1/rerank',data=body,headers={'Content-Type':'application/json'})).read(); ts.append(time.time()-t)
p.send_signal(signal.SIGTERM); p.wait()
ts=ts[2:]
print(f"{os.path.basename(binary)} {n} docs: p50 {1000*statistics.median(ts):.0f} ms, max {1000*max(ts):.0f} ms")
