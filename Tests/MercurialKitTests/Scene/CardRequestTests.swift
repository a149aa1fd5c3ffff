import Testing
@testable import MercurialKit

/// A served card's scene from a query or a body, its identity, and signed queries.
@Suite struct CardRequestTests {
    @Test func hmacIsRFC4231() {
        // RFC 4231, test case 2.
        let digest = CardSignature.hmac(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        #expect(CardSignature.hex(digest) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func theCanonicalFormIsDecodedSortedAndReencoded() throws {
        let parameters = try CardSignature.parameters("text=Hello+w%C3%B6rld%21&size=80&a%2Fb=%2F&sig=abc&empty")
        #expect(try CardSignature.canonical(parameters) == "a%2Fb=%2F&empty=&size=80&text=Hello%20w%C3%B6rld%21")
        // Every spelling of one query signs alike; another query does not.
        let key = Array("0123456789abcdef".utf8)
        let a = try CardSignature.sign(CardSignature.parameters("size=80&text=Hi%20there"), key: key)
        let b = try CardSignature.sign(CardSignature.parameters("text=Hi+there&size=80"), key: key)
        let c = try CardSignature.sign(CardSignature.parameters("text=Hi+there&size=81"), key: key)
        #expect(a == b && a != c)
        #expect(try CardSignature.verify(CardSignature.parameters("text=Hi%20there&size=80&sig=\(a)"), key: key))
        #expect(try !CardSignature.verify(CardSignature.parameters("text=Hi%20there&size=81&sig=\(a)"), key: key))
        #expect(try !CardSignature.verify(CardSignature.parameters("text=Hi%20there&size=80"), key: key))
        #expect(try !CardSignature.verify(CardSignature.parameters("text=Hi%20there&size=80&sig=\(a)&sig=\(a)"), key: key))
        #expect(throws: MercurialError.self) { try CardSignature.canonical(CardSignature.parameters("a=1&a=2")) }
        #expect(throws: MercurialError.self) { try CardSignature.parameters("a=%G1") }
        #expect(throws: MercurialError.self) { try CardSignature.parameters("a=%FF") }
    }

    @Test func oneSceneSpeltTwoWaysIsOneCard() throws {
        let png = StillEncoding(format: .png)
        let a = try CardRequest(query: CardSignature.parameters("text=Hi&size=80&light1.hue=0.5"), encoding: png)
        let b = try CardRequest(query: CardSignature.parameters("light1.hue=.50&size=80.0&text=Hi"), encoding: png)
        let c = try CardRequest(json: Array(#"{"text": "Hi", "size": 80, "light1.hue": 0.5}"#.utf8), encoding: png)
        let other = try CardRequest(query: CardSignature.parameters("text=Hi&size=81&light1.hue=0.5"), encoding: png)
        #expect(a.identity(withRecipe: false) == b.identity(withRecipe: false))
        #expect(a.identity(withRecipe: false) == c.identity(withRecipe: false))
        #expect(a.identity(withRecipe: false) != other.identity(withRecipe: false))
        #expect(a.identity(withRecipe: false) != a.identity(withRecipe: true))
        let jpeg = try CardRequest(query: CardSignature.parameters("text=Hi&size=80&light1.hue=0.5"), encoding: StillEncoding(format: .jpeg))
        #expect(jpeg.identity(withRecipe: false) != a.identity(withRecipe: false))
    }

    @Test func aQueryNamesFilesNever() throws {
        let png = StillEncoding(format: .png)
        for query in ["text=x&font=/etc/passwd", "text=x&font=../x.ttf", "text=x&mask=a.png", "text=x&shadingImage=s.png",
                      "text=x&material=./m.json", "width=9&height=9&layers%5B0%5D.material=/tmp/m.json",
                      "width=9&height=9&layers%5B0%5D.font=/etc/passwd", "layers%5B64%5D.text=x"] {
            #expect(throws: MercurialError.self, "\(query)") {
                try CardRequest(query: CardSignature.parameters(query), encoding: png)
            }
        }
        let layered = try CardRequest(query: CardSignature.parameters("width=400&height=200&layers%5B1%5D.text=B&layers%5B1%5D.material=gold"), encoding: png)
        #expect(layered.settings.layers.count == 2 && layered.settings.layers[1].settings.text == "B")
    }
}
