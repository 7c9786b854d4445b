import { assert, describe, it } from "@effect/vitest"
import { addressClassOf, normalizedWebhookUrl, urlRefusal } from "./WebhookUrlPolicy.ts"

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
      ["1::2::3", "invalid"],
      // IANA's special-purpose registries: what is not globally reachable is private, embedded IPv4 decides.
      ["192.0.0.8", "private"],
      ["192.0.2.1", "private"],
      ["198.18.0.1", "private"],
      ["198.19.255.254", "private"],
      ["198.20.0.1", "public"],
      ["198.51.100.7", "private"],
      ["203.0.113.9", "private"],
      ["192.88.99.1", "private"],
      ["::127.0.0.1", "loopback"],
      ["::10.1.2.3", "private"],
      ["::93.184.215.14", "public"],
      ["64:ff9b::127.0.0.1", "loopback"],
      ["64:ff9b::a00:1", "private"],
      ["64:ff9b::93.184.215.14", "public"],
      ["64:ff9b:1::1", "private"],
      ["2002:7f00:1::", "loopback"],
      ["2002:a9fe:a9fe::1", "link-local"],
      ["2002:5db8:d70e::1", "public"],
      ["2001::1", "private"],
      ["2001:2::1", "private"],
      ["2001:db8::1", "private"],
      ["3fff::1", "private"],
      ["fec0::1", "private"],
      ["feff::1", "private"],
      ["100::1", "private"],
      ["2001:4860:4860::8888", "public"]
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

  it("a refusal says what this server accepts: http in embedded mode, https only in production", () => {
    const production = { requireHttps: true, allowPrivate: false }
    const embedded = { requireHttps: false, allowPrivate: true }
    assert.strictEqual(
      urlRefusal("ftp://127.0.0.1/x", embedded),
      "The webhook URL's scheme ftp is not accepted: this server accepts http and https URLs, loopback and private addresses included"
    )
    assert.notMatch(urlRefusal("ftp://127.0.0.1/x", embedded) ?? "", /accepts https/)
    assert.strictEqual(
      urlRefusal("http://hooks.example/x", production),
      "The webhook URL's scheme http is not accepted: this server accepts https URLs to public addresses only"
    )
    for (const url of ["https://[::1]:8443/x", "https://0x7f000001:8443/x", "https://localhost/x"]) {
      assert.strictEqual(
        urlRefusal(url, production),
        "The webhook URL must not point to a loopback address: this server accepts https URLs to public addresses only",
        url
      )
    }
    assert.strictEqual(
      urlRefusal("http://10.0.0.2/x", { requireHttps: false, allowPrivate: false }),
      "The webhook URL must not point to a private address: this server accepts http and https URLs to public addresses only"
    )
  })

  it("stores URLs parsed and normalised; refuses whitespace, control characters and credentials", () => {
    const production = { requireHttps: true, allowPrivate: false }
    assert.deepStrictEqual(normalizedWebhookUrl("HTTPS://Hooks.Example:443", production), {
      url: "https://hooks.example/"
    })
    assert.deepStrictEqual(normalizedWebhookUrl("https://hooks.example/a/../b?x=1", production), {
      url: "https://hooks.example/b?x=1"
    })
    for (const bad of [
      " https://hooks.example/",
      "https://hooks.example/\n",
      "https://hooks.\texample/",
      "https://hooks.example/\u0000",
      "https://user:pw@hooks.example/",
      "https://user@hooks.example/",
      "https://[::127.0.0.1]/",
      "https://[64:ff9b::a00:1]/",
      "https://198.18.0.1/"
    ]) {
      assert.property(normalizedWebhookUrl(bad, production), "refusal", JSON.stringify(bad))
    }
  })
})
