// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "MercurialText",
    products: [
        .executable(name: "mercurial", targets: ["mercurial"]),
        .library(name: "MercurialKit", targets: ["MercurialKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The live editor's HTTP server (`mercurial edit`): pure Swift, no SwiftNIO.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
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
        // SHA-256 of font files, for the recipe each title carries.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Chipmunk2D (no pkg-config file in Debian): the physics of the `dynamics` block.
        .systemLibrary(name: "CChipmunk", providers: [.apt(["libchipmunk-dev"])]),
        .target(
            name: "CPNGWriter",
            dependencies: ["CPNG"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .target(
            name: "MercurialKit",
            dependencies: ["CFreeType", "CHarfBuzz", "CFontconfig", "CPNG", "CPNGWriter", "COpenSSL", "CChipmunk"]
        ),
        .target(
            name: "MercurialEditor",
            dependencies: ["MercurialKit", .product(name: "FlyingFox", package: "FlyingFox")]
        ),
        .executableTarget(
            name: "mercurial",
            dependencies: [
                "MercurialKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The live editor's server, which `mercurial edit` becomes (execv): a program
        // of its own so that FlyingFox's FoundationNetworking (libcurl) is not loaded by
        // every other command.
        .executableTarget(
            name: "mercurial-edit-server",
            dependencies: ["MercurialKit", "MercurialEditor"]
        ),
        .executableTarget(
            name: "mercurial-bench",
            dependencies: ["MercurialKit"]
        ),
        .testTarget(
            name: "MercurialKitTests",
            dependencies: ["MercurialKit", "MercurialEditor", "mercurial", "mercurial-edit-server"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
