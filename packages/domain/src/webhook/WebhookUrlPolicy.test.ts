import { assert, describe, it } from "@effect/vitest"
import { addressClassOf, urlRefusal } from "./WebhookUrlPolicy.ts"

describe("webhook URL rules", () => {
  it("classifies IPv4 and IPv6 addresses", () => {
    const cases: Array<[string, string]> = [
      ["93.184.215.14", "public"],
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.5.4", "private"],
      ["172.32.0.1", "public"],
      ["192.168.0.1", "private"],
      ["100.64.0.1", "private"],
      ["169.254.169.254", "link-local"],
      ["0.0.0.0", "unspecified"],
      ["224.0.0.1", "multicast"],
      ["255.255.255.255", "multicast"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["::", "unspecified"],
      ["fe80::1", "link-local"],
      ["febf::1", "link-local"],
      ["fc00::1", "private"],
      ["fd12:3456::1", "private"],
      ["ff02::1", "multicast"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:169.254.1.1", "link-local"],
      ["2606:4700::1111", "public"],
      ["1.2.3", "invalid"],
      ["300.1.1.1", "invalid"],
      ["1::2::3", "invalid"]
    ]
    for (const [address, kind] of cases) assert.strictEqual(addressClassOf(address), kind, address)
  })

  it("production takes https to public hosts only; embedded mode also loopback and private; never link-local", () => {
    const production = { requireHttps: true, allowPrivate: false }
    const embedded = { requireHttps: false, allowPrivate: true }
    assert.isUndefined(urlRefusal("https://hooks.example/x", production))
    assert.isDefined(urlRefusal("http://hooks.example/x", production))
    assert.isDefined(urlRefusal("https://127.0.0.1/x", production))
    assert.isDefined(urlRefusal("https://localhost/x", production))
    assert.isDefined(urlRefusal("https://[::1]/x", production))
    assert.isDefined(urlRefusal("https://0x7f.1/x", production))
    assert.isUndefined(urlRefusal("http://127.0.0.1:8080/x", embedded))
    assert.isUndefined(urlRefusal("http://localhost:8080/x", embedded))
    assert.isUndefined(urlRefusal("http://10.0.0.2/x", embedded))
    for (const url of [
      "http://169.254.169.254/",
      "http://[fe80::1]/",
      "http://0.0.0.0/",
      "http://[ff02::1]/",
      "http://0/"
    ]) {
      assert.isDefined(urlRefusal(url, embedded), url)
    }
  })
})
