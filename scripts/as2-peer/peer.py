"""An independent AS2 peer for testing tdx: pyas2lib (PyPI) driven from the command line.

Run it with the python of the environment scripts/as2-peer/setup.sh creates. pyas2lib (GPL-2.0)
is used as a library through its public classes; none of its code is part of this project.

  peer.py send  --url URL --file PATH --as2-from ID --as2-to ID --key PEM --cert PEM --partner-cert PEM
                [--encrypt-cert PEM] [--sign sha256|sha1|...] [--encrypt aes_256_cbc|aes_192_cbc|aes_128_cbc|tripledes_192_cbc]
                [--compress] [--mdn sync|async|none] [--mdn-sign sha256] [--key-enc rsaes_pkcs1v15|rsaes_oaep]
                [--message-id LEFT] [--tamper] [--wait SECONDS] [--content-type TYPE] [--filename NAME]
      Builds a message with pyas2lib, POSTs it, and verifies the MDN (sync: the response; async: a
      receipt posted back to a listener this command starts). Prints one JSON object.

  peer.py serve --listen HOST:PORT --as2-id ID --key PEM --cert PEM --partner-id ID --partner-cert PEM
                [--require-sign] [--require-encrypt] [--out DIR]
      Receives AS2 messages and answers MDNs as pyas2lib builds them (sync in the response, async
      posted to the sender's URL). Prints one JSON object per line: first {"listening": URL}, then
      one per message received and per async MDN posted.
"""
import argparse
import hashlib
import json
import logging
import os
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pyas2lib import as2

logging.basicConfig(level=logging.CRITICAL, stream=sys.stderr)


def emit(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True) + "\n")
    sys.stdout.flush()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def text(value):
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def raw_http(headers, body):
    """Header lines, a blank line and the body: the form pyas2lib parses."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    return head.encode("utf-8") + b"\r\n" + body


def http_post(url, headers, body, timeout):
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, list(resp.headers.items()), resp.read()
    except urllib.error.HTTPError as e:
        return e.code, list(e.headers.items()), e.read()


# --- send ------------------------------------------------------------------------------------

def cmd_send(a):
    key_cert = read(a.key) + b"\n" + read(a.cert)
    mdn_box = {}
    got_mdn = threading.Event()
    listener = None
    mdn_url = None
    if a.mdn == "async":
        class MdnHandler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                mdn_box["raw"] = raw_http(list(self.headers.items()), body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                got_mdn.set()

            def log_message(self, *args):
                pass

        listener = ThreadingHTTPServer(("127.0.0.1", 0), MdnHandler)
        threading.Thread(target=listener.serve_forever, daemon=True).start()
        mdn_url = f"http://127.0.0.1:{listener.server_address[1]}/mdn"

    org = as2.Organization(as2_name=a.as2_from, sign_key=key_cert, decrypt_key=key_cert, mdn_url=mdn_url, domain="peer.test")
    partner = as2.Partner(
        as2_name=a.as2_to,
        verify_cert=read(a.partner_cert),
        encrypt_cert=read(a.encrypt_cert or a.partner_cert),
        compress=a.compress,
        sign=a.sign is not None,
        digest_alg=a.sign or "sha256",
        encrypt=a.encrypt is not None,
        enc_alg=a.encrypt or "aes_256_cbc",
        mdn_mode={"sync": "SYNC", "async": "ASYNC", "none": None}[a.mdn],
        mdn_digest_alg=a.mdn_sign,
        key_enc_alg=a.key_enc,
    )
    data = read(a.file)
    message = as2.Message(sender=org, receiver=partner)
    message.build(
        data,
        filename=a.filename or os.path.basename(a.file),
        content_type=a.content_type,
        message_id=a.message_id,
        disposition_notification_to="edi@peer.test",
    )
    body = message.content
    if a.tamper:
        at = body.find(data[:16])
        if at < 0:
            emit({"error": "cannot tamper: the payload is not visible in the message body"})
            return 2
        body = body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1:]
    headers = dict(message.headers)
    status, resp_headers, resp_body = http_post(a.url, headers, body, a.wait)
    result = {
        "messageId": message.message_id,
        "mic": text(message.mic),
        "httpStatus": status,
        "signed": message.signed,
        "encrypted": message.encrypted,
        "compressed": message.compressed,
    }
    raw_mdn = None
    if a.mdn == "sync" or (resp_body and b"disposition-notification" in resp_body):
        raw_mdn = raw_http(resp_headers, resp_body)
        result["mdnVia"] = "response"
    elif a.mdn == "async":
        if got_mdn.wait(a.wait):
            raw_mdn = mdn_box["raw"]
            result["mdnVia"] = "post"
        else:
            result["mdnStatus"] = None
            result["mdnDetail"] = f"no asynchronous MDN within {a.wait} s"
    if listener:
        listener.shutdown()
    if raw_mdn is not None:
        mdn = as2.Mdn()
        mdn_status, detail = mdn.parse(raw_mdn, find_message_cb=lambda mid, recipient: message)
        result["mdnStatus"] = mdn_status
        result["mdnDetail"] = detail
        result["mdnSigned"] = b"multipart/signed" in raw_mdn.split(b"\r\n\r\n", 1)[0].lower()
        result["mdnOriginalMessageId"] = mdn.orig_message_id
        result["mdnMessageId"] = mdn.message_id
        result["mdnRaw"] = raw_mdn.decode("latin-1")
    emit(result)
    return 0


# --- serve -----------------------------------------------------------------------------------

def cmd_serve(a):
    key_cert = read(a.key) + b"\n" + read(a.cert)
    org = as2.Organization(as2_name=a.as2_id, sign_key=key_cert, decrypt_key=key_cert, domain="peer.test")
    partner = as2.Partner(
        as2_name=a.partner_id,
        verify_cert=read(a.partner_cert),
        encrypt_cert=read(a.partner_cert),
        sign=a.require_sign,
        encrypt=a.require_encrypt,
    )
    seen = set()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            raw = raw_http(list(self.headers.items()), body)
            message = as2.Message()
            with lock:
                status, (exc, _tb), mdn = message.parse(
                    raw,
                    find_org_cb=lambda as2_to: org if as2_to == org.as2_name else None,
                    find_partner_cb=lambda as2_from: partner if as2_from == partner.as2_name else None,
                    find_message_cb=lambda mid, pid: mid in seen,
                )
                if status == "processed" and message.message_id:
                    seen.add(message.message_id)
            event = {
                "event": "received",
                "messageId": message.message_id,
                "status": status,
                "detail": str(exc) if exc else None,
                "mic": text(message.mic),
                "digestAlg": message.digest_alg,
                "signed": message.signed,
                "encrypted": message.encrypted,
                "compressed": message.compressed,
                "mdnMode": mdn.mdn_mode if mdn else None,
            }
            if status == "processed":
                payload = message.content
                event["payloadSha256"] = hashlib.sha256(payload).hexdigest()
                event["payloadBytes"] = len(payload)
                if a.out:
                    path = os.path.join(a.out, (message.message_id or "message").replace("/", "_"))
                    with open(path, "wb") as f:
                        f.write(payload)
                    event["payloadPath"] = path
            emit(event)
            if mdn is not None and mdn.mdn_mode == "SYNC":
                content = mdn.content
                self.send_response(200)
                for k, v in mdn.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
                return
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            if mdn is not None and mdn.mdn_mode == "ASYNC":
                threading.Thread(target=post_async_mdn, args=(mdn,), daemon=True).start()

        def log_message(self, *args):
            pass

    def post_async_mdn(mdn):
        try:
            code, _h, _b = http_post(mdn.mdn_url, dict(mdn.headers), mdn.content, 30)
            emit({"event": "async-mdn-posted", "url": mdn.mdn_url, "httpStatus": code, "originalMessageId": mdn.orig_message_id})
        except Exception as e:  # reported, not raised: the peer keeps serving
            emit({"event": "async-mdn-posted", "url": mdn.mdn_url, "error": str(e), "originalMessageId": mdn.orig_message_id})

    host, port = a.listen.rsplit(":", 1)
    server = ThreadingHTTPServer((host, int(port)), Handler)
    emit({"listening": f"http://{host}:{server.server_address[1]}/"})
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def main():
    p = argparse.ArgumentParser(description="AS2 test peer (pyas2lib)")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("send")
    s.add_argument("--url", required=True)
    s.add_argument("--file", required=True)
    s.add_argument("--filename")
    s.add_argument("--content-type", default="application/edi-x12")
    s.add_argument("--as2-from", required=True)
    s.add_argument("--as2-to", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--cert", required=True)
    s.add_argument("--partner-cert", required=True)
    s.add_argument("--encrypt-cert", help="encrypt to this certificate instead of --partner-cert")
    s.add_argument("--sign", choices=["sha1", "sha224", "sha256", "sha384", "sha512"])
    s.add_argument("--encrypt", choices=["tripledes_192_cbc", "aes_128_cbc", "aes_192_cbc", "aes_256_cbc"])
    s.add_argument("--compress", action="store_true")
    s.add_argument("--mdn", choices=["sync", "async", "none"], default="sync")
    s.add_argument("--mdn-sign", choices=["sha1", "sha224", "sha256", "sha384", "sha512"])
    s.add_argument("--key-enc", choices=["rsaes_pkcs1v15", "rsaes_oaep"], default="rsaes_pkcs1v15")
    s.add_argument("--message-id")
    s.add_argument("--tamper", action="store_true", help="flip one bit of the payload after signing")
    s.add_argument("--wait", type=float, default=30.0)
    v = sub.add_parser("serve")
    v.add_argument("--listen", default="127.0.0.1:0")
    v.add_argument("--as2-id", required=True)
    v.add_argument("--key", required=True)
    v.add_argument("--cert", required=True)
    v.add_argument("--partner-id", required=True)
    v.add_argument("--partner-cert", required=True)
    v.add_argument("--require-sign", action="store_true")
    v.add_argument("--require-encrypt", action="store_true")
    v.add_argument("--out")
    a = p.parse_args()
    return cmd_send(a) if a.command == "send" else cmd_serve(a)


if __name__ == "__main__":
    sys.exit(main())
