// swift-tools-version:6.0
import PackageDescription

// Release programs carry the Swift runtime and Foundation in the binary (the C libraries
// stay dynamic), as `--static-swift-stdlib` would: a process then starts without loading
// and relocating a dozen Swift libraries (a 64×64 title 31 → 24 ms, `--version` 18 →
// 11 ms, medians of 21 interleaved runs). `mercurial` itself carries FoundationEssentials
// only (MercurialKit, ServeOptions and it import nothing more; see EssentialText.swift):
// no ICU or CoreFoundation, 93.8 → 44.5 MB. Debug builds, which the tests link many
// times over, stay dynamic. The runtime's own C++ and unwinding libraries are linked in as
// well: `scripts/link/cxx/libstdc++.so` is a linker script that names GCC's libstdc++.a, and
// `-static-libgcc` takes libgcc_eh.a for libgcc_s.so, two libraries fewer to load and
// relocate (`--version` 5.85 → 5.10 ms, medians of 80 runs).
let staticSwiftInRelease: [LinkerSetting] = [.unsafeFlags(
    ["-static-stdlib", "-L", Context.packageDirectory + "/scripts/link/cxx", "-Xclang-linker", "-static-libgcc"],
    .when(configuration: .release))]
// WebP, TurboJPEG, Nettle, Chipmunk and libdeflate are linked from Debian's static archives
// (their -dev packages ship them): each module map links "mercurial-NAME", a linker script in
// scripts/link that names the archive. Their headers are in the system's include path, so
// these targets ask pkg-config for nothing, which would link the shared library as well.
// Six shared libraries fewer at every start (webpmux is the sixth; a trivial C program
// linked against them and libunibreak started 0.40 ms later); FreeType, HarfBuzz,
// fontconfig, libpng, zlib and libunibreak (no static archive in Debian) stay shared.
let staticCLibraries: [LinkerSetting] = [.unsafeFlags(["-L", Context.packageDirectory + "/scripts/link"])]
// MercurialKit and the modules that import Foundation (the servers, the bench) are compiled
// with the flag too: their objects then name the static libraries the runtime and
// Foundation need (_FoundationICU, CoreFoundation…), which linking with the flag alone leaves out.
let staticSwiftCompiledInRelease: [SwiftSetting] = [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]

let package = Package(
    name: "MercurialText",
    products: [
        .executable(name: "mercurial", targets: ["mercurial"]),
        .library(name: "MercurialKit", targets: ["MercurialKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The live editor's HTTP and WebSocket server (`mercurial edit`), on SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz",
                       providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig",
                       providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // JPEG and WebP stills (`render -o card.jpg`, `-o card.webp`): TurboJPEG's API
        // returns errors (libjpeg's longjmp cannot cross Swift), libwebp's simple API.
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CWebP", providers: [.apt(["libwebp-dev"])]),
        // SHA-256 of font files, for the recipe each title carries, and the card server's
        // HMAC-SHA256 signatures (Nettle: see Sources/CNettle/shim.h).
        .systemLibrary(name: "CNettle", providers: [.apt(["nettle-dev"])]),
        // Line breaking by UAX #14 (where a line may end: after spaces, between ideographs,
        // never before closing punctuation), tailored in LineBreaks.swift.
        .systemLibrary(name: "CUniBreak", pkgConfig: "libunibreak",
                       providers: [.apt(["libunibreak-dev"])]),
        // Chipmunk2D (no pkg-config file in Debian): the physics of the `dynamics` block.
        .systemLibrary(name: "CChipmunk", providers: [.apt(["libchipmunk-dev"])]),
        .target(
            name: "CPNGWriter",
            dependencies: ["CPNG"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("mercurial-deflate")] + staticCLibraries
        ),
        // The blur's multiply-add loop, compiled for several vector widths and chosen at
        // run time (Swift cannot), the same bits at each (see weighted_sum.c).
        .target(name: "CKernels"),
        .target(
            name: "MercurialKit",
            dependencies: ["CKernels", "CFreeType", "CHarfBuzz", "CFontconfig", "CPNG", "CPNGWriter", "CNettle", "CChipmunk", "CTurboJPEG", "CWebP", "CUniBreak"],
            // Optimised in debug builds too: unoptimised, its pixel loops are about 100 times
            // slower (300 small titles: 41.5 s against 0.44 s released), and the test suite
            // runs the debug build's commands thousands of times. `-enable-testing` stays on.
            // Compiled with `-static-stdlib` in release too (see staticSwiftCompiledInRelease).
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))] + staticSwiftCompiledInRelease,
            linkerSettings: staticCLibraries
        ),
        .target(
            name: "MercurialEditor",
            dependencies: [
                "MercurialKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page, compiled into the binary as byte arrays (`PackageResources`): the
            // server is installed as a static binary, with no resource bundle beside it.
            resources: [
                .embedInCode("Page/index.html"),
                .embedInCode("Page/editor.css"),
                .embedInCode("Page/editor.js"),
                .embedInCode("Page/editor-scene.js"),
            ],
            swiftSettings: staticSwiftCompiledInRelease
        ),
        .executableTarget(
            name: "mercurial",
            dependencies: [
                "MercurialKit",
                "ServeOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: staticSwiftInRelease
        ),
        // `mercurial serve`'s options, declared once for the command line and the server.
        .target(
            name: "ServeOptions",
            dependencies: ["MercurialKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The card server (`mercurial serve`): Hummingbird routes over the one job API.
        .target(
            name: "MercurialServer",
            dependencies: [
                "MercurialKit",
                "ServeOptions",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: staticSwiftCompiledInRelease
        ),
        // The card server's program, which `mercurial serve` becomes (execv), as edit's is.
        .executableTarget(
            name: "mercurial-serve-server",
            dependencies: ["MercurialKit", "MercurialServer", "ServeOptions"],
            swiftSettings: staticSwiftCompiledInRelease,
            linkerSettings: staticSwiftInRelease
        ),
        // The live editor's server, which `mercurial edit` becomes (execv): a program
        // of its own so that SwiftNIO, Hummingbird and their dependencies are not linked
        // into, nor loaded by, every other command (SwiftNIO needs no FoundationNetworking).
        .executableTarget(
            name: "mercurial-edit-server",
            dependencies: ["MercurialKit", "MercurialEditor"],
            swiftSettings: staticSwiftCompiledInRelease,
            linkerSettings: staticSwiftInRelease
        ),
        .executableTarget(
            name: "mercurial-bench",
            dependencies: ["MercurialKit"],
            swiftSettings: staticSwiftCompiledInRelease,
            linkerSettings: staticSwiftInRelease
        ),
        // What the three test targets share: running the built binaries, temporary
        // folders, and the fixtures.
        .target(
            name: "MercurialTestSupport",
            dependencies: ["MercurialKit"],
            path: "Tests/MercurialTestSupport",
            resources: [.copy("Fixtures")]
        ),
        // The library, one folder per concern as in Sources/MercurialKit.
        .testTarget(
            name: "MercurialKitTests",
            dependencies: ["MercurialKit", "MercurialTestSupport", "mercurial"]
        ),
        // The command line, through the built `mercurial` binary.
        .testTarget(
            name: "MercurialCLITests",
            dependencies: ["MercurialKit", "MercurialTestSupport", "mercurial"]
        ),
        // The card server (`mercurial serve`), over real HTTP on loopback.
        .testTarget(
            name: "MercurialServerTests",
            dependencies: ["MercurialKit", "MercurialTestSupport", "mercurial", "mercurial-serve-server"]
        ),
        // The live editor: its session, server, socket and page.
        .testTarget(
            name: "MercurialEditorTests",
            dependencies: ["MercurialKit", "MercurialEditor", "MercurialTestSupport", "mercurial", "mercurial-edit-server"]
        ),
    ]
)
