/// Rows of text in aligned columns under a header row, two spaces apart, as `countries` and `config show`
/// print them. Widths count characters; the last column is not padded (no trailing spaces); a column may cap
/// its width (a longer cell then pushes its row's next cells right, and only its row's).
struct Columns {
  /// The header row's titles, one per column (in the reader's language).
  let header: [String]
  /// The columns written flush right (numbers).
  var rightAligned: Set<Int> = []
  /// The widest a column is padded to, by column.
  var caps: [Int: Int] = [:]
  private(set) var rows: [[String]] = []

  init(header: [String], rightAligned: Set<Int> = [], caps: [Int: Int] = [:]) {
    self.header = header
    self.rightAligned = rightAligned
    self.caps = caps
  }

  /// Titles from one catalogue text, `|` between them.
  init(titles: String, rightAligned: Set<Int> = [], caps: [Int: Int] = [:]) {
    self.init(
      header: titles.split(separator: "|", omittingEmptySubsequences: false).map(String.init),
      rightAligned: rightAligned, caps: caps)
  }

  mutating func append(_ row: [String]) { rows.append(row) }

  /// The header row and every row, each ending with a newline.
  var text: String {
    let all = [header] + rows
    let widths = header.indices.map { column in
      min(caps[column] ?? .max, all.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0)
    }
    var out = ""
    for (number, row) in all.enumerated() {
      var cells: [String] = []
      for (column, cell) in row.enumerated() {
        let last = column == row.count - 1
        if rightAligned.contains(column) {
          cells.append(cell.leftPadding(to: widths[column]))
        } else {
          cells.append(last ? cell : cell.padding(to: widths[column]))
        }
      }
      let line = cells.joined(separator: "  ")
      out += (number == 0 ? Paint.bold(line) : line) + "\n"
    }
    return out
  }
}
