//! What the bench shows of its measurements: each table printed as soon as it is handed
//! over, and every table and value gathered into one JSON object, in the order they came.
//! Op families build `Table`s of rows that format themselves; the driver owns the `Report`.

use std::fmt::{Display, Write as _};

/// One measured result: a line of the printed table and a JSON object on one line.
pub trait Row {
    fn line(&self) -> String;
    fn json(&self) -> String;
}

/// A printed table (a header line, then one line per row) that is, in the JSON file, the
/// array of its rows' objects under `key`.
pub struct Table<R> {
    pub key: &'static str,
    pub header: String,
    pub rows: Vec<R>,
}

/// The JSON file's top-level entries so far; prints what it is handed.
#[derive(Default)]
pub struct Report {
    /// `  "key": value` entries, separated by ",\n".
    entries: String,
    printed_a_table: bool,
}

impl Report {
    /// A top-level entry whose value is already JSON text (a number, a quoted string, …).
    pub fn value(&mut self, key: &str, value: impl Display) {
        if !self.entries.is_empty() {
            self.entries.push_str(",\n");
        }
        let _ = write!(self.entries, "  \"{key}\": {value}");
    }

    /// Prints `table` (after a blank line, unless it is the first) and adds its rows as an array.
    pub fn table<R: Row>(&mut self, table: &Table<R>) {
        if self.printed_a_table {
            println!();
        }
        self.printed_a_table = true;
        println!("{}", table.header);
        let mut array = String::from("[\n");
        for (i, row) in table.rows.iter().enumerate() {
            println!("{}", row.line());
            let _ = writeln!(array, "    {}{}", row.json(), if i + 1 < table.rows.len() { "," } else { "" });
        }
        array.push_str("  ]");
        self.value(table.key, array);
    }

    /// Prints a result that stands alone and adds its object under `key`.
    pub fn single(&mut self, key: &str, row: &impl Row) {
        println!("{}", row.line());
        self.value(key, row.json());
    }

    /// Writes the JSON file: the entries in the order they were added, one per line.
    pub fn write(&self, path: &str) -> std::io::Result<()> {
        std::fs::write(path, format!("{{\n{}\n}}\n", self.entries))
    }
}
