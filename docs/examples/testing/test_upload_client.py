"""Testing a Python client against `marketkit serve --memory --test-controls`, with the standard
library only: `MARKETKIT_URL=http://127.0.0.1:8787 python3 -m unittest test_upload_client.py`.

The client (publish) creates a listing, uploads its file to the signed URL, confirms and submits
it; it waits out 429 and 503 (Retry-After) and repeats a PUT whose connection broke. The tests
steer the server through /__marketkit/ and read back what the client sent.
"""
import http.client
import json
import os
import time
import unittest
import urllib.error
import urllib.request

BASE = os.environ.get("MARKETKIT_URL", "http://127.0.0.1:8787")
API = BASE + "/api/v1"
CONTROLS = BASE + "/__marketkit"


def call(method, url, body=None, token=None, content_type="application/json", raw=None):
    """One HTTP call: (status, headers, parsed JSON body or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("content-type", content_type)
    if token:
        request.add_header("authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request) as response:
            text = response.read().decode()
            return response.status, response.headers, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, error.headers, json.loads(text) if text else None


def publish(token, title, slug, data, retries=3, sleep=time.sleep):
    """The client under test: the listing's status once submitted."""

    def api(method, path, body=None):
        for attempt in range(retries + 1):
            status, headers, answer = call(method, API + path, body, token)
            if status not in (429, 503) or attempt == retries:
                break
            sleep(int(headers.get("retry-after", "1")))
        if status >= 400:
            raise RuntimeError("%s %s: %s %s" % (method, path, status, answer["code"]))
        return answer

    asset = api("POST", "/assets", {"title": title, "slug": slug})
    issued = api("POST", "/assets/%s/upload-url" % asset["id"], {"filename": "pack.zip"})
    for attempt in range(retries + 1):
        try:
            status, _, _ = call("PUT", issued["signed_url"], raw=data, content_type="application/zip")
            break
        except (urllib.error.URLError, http.client.HTTPException, OSError):
            # The connection broke: the PUT is safe to repeat.
            if attempt == retries:
                raise
    api("POST", "/assets/%s/confirm-file" % asset["id"], {"storage_path": issued["storage_path"], "file_size": len(data)})
    return api("POST", "/assets/%s/submit" % asset["id"])["status"]


class UploadClientTest(unittest.TestCase):
    def setUp(self):
        # Back to the seed before every test: one account with a token, nothing else.
        status, _, seeded = call("POST", CONTROLS + "/seed", {"accounts": [{"username": "py-seller"}]})
        self.assertEqual(status, 200)
        self.token = seeded["accounts"]["py-seller"]["token"]
        self.waits = []

    def operations(self, operation):
        _, _, log = call("GET", CONTROLS + "/requests?operation=" + operation)
        return [entry["status"] for entry in log["data"]]

    def test_publishes(self):
        self.assertEqual(publish(self.token, "Python Pack", "python-pack", b"PK\x03\x04 py"), "pending")

    def test_survives_a_429(self):
        call("POST", CONTROLS + "/faults", {"target": "POST /assets", "kind": "rateLimit", "retryAfter": 2})
        self.assertEqual(publish(self.token, "Python Pack", "python-pack", b"PK\x03\x04 py", sleep=self.waits.append), "pending")
        self.assertEqual(self.waits, [2])
        self.assertEqual(self.operations("createAsset"), [429, 201])

    def test_survives_a_dropped_put(self):
        call("POST", CONTROLS + "/faults", {"target": "upload", "kind": "drop"})
        self.assertEqual(publish(self.token, "Python Pack", "python-pack", b"PK\x03\x04 py"), "pending")
        self.assertEqual(self.operations("upload"), [None, 200])

    def test_a_scheduled_listing_is_released_when_the_clock_passes_it(self):
        call("POST", CONTROLS + "/seed", {"accounts": [{"username": "py-seller", "plan_features": ["scheduled_publishing"]}],
                                          "assets": [{"owner": "py-seller", "title": "Later Pack", "slug": "later-pack", "status": "scheduled",
                                                      "file": True, "scheduled_publish_at": "2099-01-01T00:00:00.000Z"}]})
        _, _, clock = call("POST", CONTROLS + "/clock", {"set": "2099-01-01T00:00:00.000Z"})
        self.assertEqual([asset["status"] for asset in clock["released"]], ["pending"])


if __name__ == "__main__":
    unittest.main()
