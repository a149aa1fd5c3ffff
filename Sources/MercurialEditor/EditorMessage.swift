import MercurialKit

/// The decoding of the page's messages (a POST's body or a socket's text), apart from
/// the session, so a fuzz target can drive it.
public enum EditorMessage {
    public struct Invalid: Error {
        public var message: String
    }

    /// A message's members, or why it is not a JSON object.
    public static func members(_ body: [UInt8]) -> Result<[JSONMember], Invalid> {
        let root: JSONNode
        do {
            root = try JSONDocument.parse(body)
        } catch {
            return .failure(Invalid(message: "the body is not JSON: \(error.location): \(error.reason)"))
        }
        guard case .object(let members) = root.value else {
            return .failure(Invalid(message: "the body must be a JSON object"))
        }
        return .success(members)
    }

    /// `{"changes": [{"key": K, "value": V}, …], "tag": T}` or `{"key": K, "value": V, "tag": T}`.
    public static func changes(_ body: [UInt8]) -> Result<(changes: [EditorSession.Change], tag: String?), Invalid> {
        members(body).flatMap(changes)
    }

    public static func changes(_ members: [JSONMember]) -> Result<(changes: [EditorSession.Change], tag: String?), Invalid> {
        func string(_ node: JSONNode?) -> String? {
            switch node?.value {
            case .string(let s)?: return s
            case .number(let v)?: return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
            case .bool(let b)?: return b ? "true" : "false"
            default: return nil
            }
        }
        func change(_ fields: [JSONMember]) -> EditorSession.Change? {
            guard let key = string(fields.first { $0.key == "key" }?.value),
                  let value = string(fields.first { $0.key == "value" }?.value) else { return nil }
            return EditorSession.Change(key: key, value: value)
        }
        var changes: [EditorSession.Change] = []
        if let list = members.first(where: { $0.key == "changes" })?.value {
            guard case .array(let items) = list.value, items.count <= 256 else {
                return .failure(Invalid(message: "\"changes\" must be an array of at most 256 {\"key\", \"value\"} objects"))
            }
            for item in items {
                guard case .object(let fields) = item.value, let c = change(fields) else {
                    return .failure(Invalid(message: "each change must be {\"key\": string, \"value\": string}"))
                }
                changes.append(c)
            }
        } else if let c = change(members) {
            changes = [c]
        } else {
            return .failure(Invalid(message: "give {\"key\": string, \"value\": string} or {\"changes\": […]}"))
        }
        let tag = string(members.first { $0.key == "tag" }?.value).map { String($0.prefix(100)) }
        return .success((changes, tag))
    }

    /// A socket message `{"have": F}`: F, or nil when the message is not one; an error when F is not a frame number.
    public static func have(_ members: [JSONMember]) -> Result<Int, Invalid>? {
        guard let value = members.first(where: { $0.key == "have" })?.value else { return nil }
        guard case .number(let n) = value.value, n >= 0, n < 1e15, n == n.rounded() else {
            return .failure(Invalid(message: "\"have\" must be a frame number"))
        }
        return .success(Int(n))
    }
}
