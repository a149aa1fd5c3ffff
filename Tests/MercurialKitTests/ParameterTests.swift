import Foundation
import Testing
@testable import MercurialKit

@Suite struct ParameterTests {
    @Test func everyKeyIsListedOnceInItsGroup() {
        let keys = ParameterGroup.allParameters.map(\.key)
        #expect(Set(keys).count == keys.count)
        for required in ["shininess", "radius", "scale"] + (1...4).flatMap({ i in
            ["hue", "brightness", "x", "y", "z"].map { "light\(i).\($0)" } }) {
            #expect(keys.contains(required), "\(required)")
        }
        #expect(ParameterGroup.all.map(\.name).prefix(3) == ["Material", "Height field", "Light 1"])
    }

    @Test func defaultsAreTheOriginals() throws {
        let settings = RenderSettings()
        func value(_ key: String) throws -> ParameterValue {
            try ParameterGroup.parameter(forKey: key).parameterFunction.value(in: settings)
        }
        #expect(try value("shininess") == .number(0.02))
        #expect(try value("light2.hue") == .number(0.333))
        #expect(try value("light2.y") == .number(-35))
        #expect(try value("light3.z") == .number(-10))
        #expect(try value("light4.z") == .number(35))
        #expect(try value("radius") == .number(10))
        #expect(try value("scale") == .number(10))
    }

    @Test func setAppliesThroughTheParameterFunction() throws {
        var settings = RenderSettings()
        try settings.set(assignment: "light3.x=12.5")
        try settings.set(assignment: "light1.hue = 0.5")
        try settings.set(assignment: "diffuse=#ff8000")
        #expect(settings.scene.lights[2].position.x == 12.5)
        #expect(settings.scene.lights[0].hue == 0.5)
        #expect(settings.scene.material.diffuse == RGBColor(r: 1, g: 128.0 / 255, b: 0))
    }

    @Test(arguments: [
        ("light1.x=80", "light1.x is 80, out of range -50…50"),
        ("light1.z=-11", "out of range -10…50"),
        ("shininess=0", "out of range 0.001…0.25"),
        ("radius=nan", "not a finite number"),
        ("scale=inf", "not a finite number"),
        ("light1.hue=abc", "is not a number"),
        ("diffuse=blurple", "is not a colour"),
        ("light5.x=1", "unknown parameter 'light5.x'"),
        ("shinyness=0.1", "did you mean 'shininess'"),
        ("radius", "has no '='"),
    ])
    func badAssignmentsNameTheKeyAndTheRange(_ assignment: String, _ fragment: String) {
        var settings = RenderSettings()
        do {
            try settings.set(assignment: assignment)
            Issue.record("\(assignment) was accepted")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(settings == RenderSettings(), "a refused value changes nothing")
    }

    @Test func colourParsing() {
        #expect(RGBColor.parse("#fff") == .white)
        #expect(RGBColor.parse("Black") == .black)
        #expect(RGBColor.parse("#00ff00") == RGBColor(r: 0, g: 1, b: 0))
        #expect(RGBColor.parse("#12345") == nil && RGBColor.parse("#gg0000") == nil && RGBColor.parse("blurple") == nil)
        #expect(RGBColor.parse("gold")?.hex == "#ffd700")
    }
}
