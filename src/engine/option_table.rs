//! The option table: every option's name, kind, bounds and handler, and how a value is checked
//! and applied to the [`Engine`].

use super::facade::Engine;
use super::options::{
    DEFAULT_BOOK_MARGIN, DEFAULT_BOOK_PLY, DEFAULT_EGTB_CACHE_MB, MAX_HASH_MB, MAX_THREADS,
    OptionKind, OptionSpec,
};
use super::tables::{default_tables, holds_other_tables, load_tables};
use super::types::EngineError;
use crate::book::Book;
use crate::eval::EvalFile;
use crate::rules::Variant;
use crate::search::skill::{self, MAX_LEVEL};
use crate::search::tt::TranspositionTable;
use std::fmt;
use std::sync::Arc;

/// The change a checked option value makes, applied by [`Engine::apply`]: made by the option's
/// own handler, so a value can only reach the option it was read for.
type Apply = Box<dyn FnOnce(&mut Engine) -> Result<(), EngineError> + Send>;

/// How an option's value is read and applied: its kind, bounds and apply function together
/// (the shape of Stockfish's `Option(16, 1, MAX, on_change)`).
enum Handler {
    /// An integer in `min..=max`.
    Spin {
        default: i64,
        min: i64,
        max: i64,
        apply: fn(&mut Engine, i64) -> Result<(), EngineError>,
    },
    /// `true` or `false`.
    Check {
        default: bool,
        apply: fn(&mut Engine, bool) -> Result<(), EngineError>,
    },
    /// A variant's name (the `Variant` combo).
    Variant {
        apply: fn(&mut Engine, Variant) -> Result<(), EngineError>,
    },
    /// No value.
    Button {
        apply: fn(&mut Engine) -> Result<(), EngineError>,
    },
    /// A path, or empty (`<empty>`) for none: `read` loads and checks what the path names
    /// without changing the engine, so a bad file is refused whole.
    Path {
        read: fn(&Engine, Option<&str>) -> Result<Apply, String>,
    },
}

/// One entry of the option table.
struct EngineOption {
    name: &'static str,
    handler: Handler,
}

impl EngineOption {
    fn kind(&self) -> OptionKind {
        match self.handler {
            Handler::Spin {
                default, min, max, ..
            } => OptionKind::Spin { default, min, max },
            Handler::Check { default, .. } => OptionKind::Check { default },
            Handler::Variant { .. } => OptionKind::Combo {
                default: Variant::default().name(),
                values: Variant::ALL.iter().map(|v| v.name()).collect(),
            },
            Handler::Button { .. } => OptionKind::Button,
            Handler::Path { .. } => OptionKind::Text { default: "" },
        }
    }
}

impl EngineOption {
    const fn spin(
        name: &'static str,
        default: i64,
        (min, max): (i64, i64),
        apply: fn(&mut Engine, i64) -> Result<(), EngineError>,
    ) -> Self {
        let handler = Handler::Spin {
            default,
            min,
            max,
            apply,
        };
        EngineOption { name, handler }
    }

    const fn check(
        name: &'static str,
        default: bool,
        apply: fn(&mut Engine, bool) -> Result<(), EngineError>,
    ) -> Self {
        EngineOption {
            name,
            handler: Handler::Check { default, apply },
        }
    }
}

/// Every option, in listing order, with its handler.
static OPTIONS: [EngineOption; 17] = [
    EngineOption::spin("Hash", 64, (1, MAX_HASH_MB), Engine::set_hash),
    EngineOption::spin("Threads", 1, (1, MAX_THREADS), |engine, threads| {
        engine.options.threads = threads as usize;
        Ok(())
    }),
    EngineOption::spin("MultiPV", 1, (1, 64), |engine, lines| {
        engine.options.multipv = lines as usize;
        Ok(())
    }),
    EngineOption::check("Ponder", false, |engine, flag| {
        engine.options.ponder = flag;
        Ok(())
    }),
    EngineOption::spin("Move Overhead", 30, (0, 5000), |engine, ms| {
        engine.options.move_overhead_ms = ms as u64;
        Ok(())
    }),
    EngineOption {
        name: "Variant",
        handler: Handler::Variant {
            apply: Engine::set_variant,
        },
    },
    EngineOption {
        name: "Clear Hash",
        handler: Handler::Button {
            apply: |engine| {
                engine.refuse_while_searching("clear the hash")?;
                engine.tt.clear();
                Ok(())
            },
        },
    },
    EngineOption {
        name: "EvalFile",
        handler: Handler::Path {
            read: Engine::read_eval_file,
        },
    },
    EngineOption {
        name: "EGTBPath",
        handler: Handler::Path {
            read: Engine::read_egtb_path,
        },
    },
    EngineOption::spin(
        "EGTBCache",
        DEFAULT_EGTB_CACHE_MB as i64,
        (0, MAX_HASH_MB),
        Engine::set_egtb_cache,
    ),
    EngineOption::check("Book", true, |engine, flag| {
        engine.options.book = flag;
        Ok(())
    }),
    EngineOption {
        name: "BookFile",
        handler: Handler::Path {
            read: Engine::read_book_file,
        },
    },
    EngineOption::spin(
        "BookPly",
        DEFAULT_BOOK_PLY as i64,
        (0, 1000),
        |engine, plies| {
            engine.options.book_ply = plies as u32;
            Ok(())
        },
    ),
    EngineOption::spin(
        "BookMargin",
        DEFAULT_BOOK_MARGIN as i64,
        (0, 1000),
        |engine, margin| {
            engine.options.book_margin = margin as i32;
            Ok(())
        },
    ),
    EngineOption::spin(
        "Skill Level",
        MAX_LEVEL as i64,
        (0, MAX_LEVEL as i64),
        |engine, level| {
            engine.options.skill_level = level as u32;
            Ok(())
        },
    ),
    EngineOption::check("UCI_LimitStrength", false, |engine, flag| {
        engine.options.limit_strength = flag;
        Ok(())
    }),
    EngineOption::spin(
        "UCI_Elo",
        skill::FULL_STRENGTH_ELO as i64,
        (skill::LOWEST_ELO as i64, skill::FULL_STRENGTH_ELO as i64),
        |engine, elo| {
            engine.options.elo = elo as i32;
            Ok(())
        },
    ),
];

/// Every option, in listing order.
pub fn option_specs() -> Vec<OptionSpec> {
    OPTIONS
        .iter()
        .map(|option| OptionSpec {
            name: option.name,
            kind: option.kind(),
        })
        .collect()
}

/// One checked option value, ready to be set ([`Engine::check_option`], [`Engine::apply`]).
pub struct Setting {
    /// The option's name, as listed.
    name: &'static str,
    apply: Apply,
}

impl Setting {
    /// The option's name, as listed.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

impl fmt::Debug for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting").field("name", &self.name).finish()
    }
}

impl Engine {
    /// Sets an option by name (case-insensitive, as UCI allows): [`Engine::check_option`],
    /// then [`Engine::apply`]. Refused while searching for the options that touch the table
    /// or the game (`Hash`, `Clear Hash`, `Variant`, `EGTBPath`); the others take effect at
    /// the next `go`.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        let setting = self.check_option(name, value)?;
        self.apply(setting)
    }

    /// Makes the change a checked value makes.
    pub fn apply(&mut self, setting: Setting) -> Result<(), EngineError> {
        (setting.apply)(self)
    }

    /// Reads an option's name and value without changing anything: the setting it would make,
    /// or why it is refused. A file the value names (`EvalFile`, `EGTBPath`) is read and
    /// checked here, so that a bad one is refused whole and what is in force stays.
    pub fn check_option(&self, name: &str, value: &str) -> Result<Setting, EngineError> {
        let option = OPTIONS
            .iter()
            .find(|option| option.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| EngineError::UnknownOption(name.trim().to_string()))?;
        let value = value.trim();
        let bad = |expected: String| EngineError::BadOptionValue {
            name: option.name.to_string(),
            value: value.to_string(),
            expected,
        };
        let apply: Apply = match option.handler {
            Handler::Spin {
                min, max, apply, ..
            } => {
                let number: i64 = value
                    .parse()
                    .ok()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| bad(format!("an integer from {min} to {max}")))?;
                Box::new(move |engine| apply(engine, number))
            }
            Handler::Check { apply, .. } => {
                let flag = match value.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("true or false".into())),
                };
                Box::new(move |engine| apply(engine, flag))
            }
            Handler::Variant { apply } => {
                let variant: Variant = value.parse().map_err(|_| {
                    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
                    bad(format!("one of {}", names.join(", ")))
                })?;
                Box::new(move |engine| apply(engine, variant))
            }
            Handler::Button { apply } => Box::new(apply),
            Handler::Path { read } => {
                let path = (!value.is_empty() && value != "<empty>").then_some(value);
                read(self, path).map_err(bad)?
            }
        };
        Ok(Setting {
            name: option.name,
            apply,
        })
    }

    /// `Hash`: a new, empty table of `megabytes`; if that much cannot be had, the old size is
    /// kept (empty too: the old table is freed first, so the two are never held at once).
    fn set_hash(&mut self, megabytes: i64) -> Result<(), EngineError> {
        self.refuse_while_searching("resize the hash")?;
        // The finished search's thread let go of the table as it ended; its handle goes too.
        self.search = None;
        if Arc::get_mut(&mut self.tt).is_none() {
            // Still shared (cannot happen once the search is dropped): a table of our own.
            self.tt = Arc::new(TranspositionTable::new(1));
        }
        let table = Arc::get_mut(&mut self.tt).expect("the engine's own table");
        let resized = table.try_resize(megabytes as usize, self.options.hash_mb);
        if !resized {
            return Err(EngineError::BadOptionValue {
                name: "Hash".into(),
                value: megabytes.to_string(),
                expected: format!(
                    "a size this machine can allocate (kept {} MB)",
                    self.options.hash_mb
                ),
            });
        }
        self.options.hash_mb = megabytes as usize;
        Ok(())
    }

    /// `EvalFile`: the file's text, checked as weights of the current variant (`None`: the
    /// built-in weights).
    fn read_eval_file(&self, path: Option<&str>) -> Result<Apply, String> {
        let loaded = match path {
            None => None,
            Some(path) => {
                let bytes =
                    std::fs::read(path).map_err(|e| format!("a readable weights file ({e})"))?;
                let data = EvalFile::read(&bytes, self.variant())
                    .map_err(|e| format!("a weights file ({e})"))?;
                Some((path.to_string(), data))
            }
        };
        Ok(Box::new(move |engine| {
            let (file, data) = loaded.unzip();
            engine.options.eval_file = file.unwrap_or_default();
            engine.options.eval_data = data;
            Ok(())
        }))
    }

    /// `EGTBPath`: the current variant's tables under the directory, every file's header
    /// checked (`None`: the default directory's tables, if it holds any). A directory that
    /// holds tables of other variants only is kept without opening any, so that `Variant`
    /// may come after `EGTBPath` (GUIs send options in their own order): the tables open
    /// when the variant switches to one of them. With `EGTBCache` 0 the directory is
    /// checked and kept, and no table is probed.
    fn read_egtb_path(&self, path: Option<&str>) -> Result<Apply, String> {
        let cache_mb = self.options.egtb_cache_mb;
        let (path, loaded) = match path {
            None => (String::new(), default_tables(self.variant(), cache_mb)),
            Some(path) => match load_tables(path, self.variant(), cache_mb.max(1)) {
                Ok(loaded) => (path.to_string(), Some(loaded).filter(|_| cache_mb > 0)),
                Err(_) if holds_other_tables(path, self.variant()) => (path.to_string(), None),
                Err(e) => return Err(format!("a table directory ({e})")),
            },
        };
        Ok(Box::new(move |engine| {
            engine.refuse_while_searching("change the endgame tables")?;
            engine.options.egtb_path = path;
            engine.egtb = loaded;
            Ok(())
        }))
    }

    /// `EGTBCache`: the tables reopened with a cache of the new size (0: no tables probed).
    fn set_egtb_cache(&mut self, megabytes: i64) -> Result<(), EngineError> {
        self.refuse_while_searching("resize the endgame-table cache")?;
        self.options.egtb_cache_mb = megabytes as usize;
        // The finished search's thread let go of the old tables as it ended; its handle goes too.
        self.search = None;
        self.egtb = None;
        self.egtb = self.tables_for(self.variant());
        Ok(())
    }

    /// `BookFile`: the book, read and checked (`None`: no book file).
    fn read_book_file(&self, path: Option<&str>) -> Result<Apply, String> {
        let loaded = match path {
            None => None,
            Some(path) => {
                let book = Book::read(std::path::Path::new(path))
                    .map_err(|e| format!("a book file ({e})"))?;
                Some((path.to_string(), Arc::new(book)))
            }
        };
        Ok(Box::new(move |engine| {
            let (file, book) = loaded.unzip();
            engine.options.book_file = file.unwrap_or_default();
            engine.options.book_data = book;
            Ok(())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Options;

    /// The listed default of every option is what a fresh engine has: setting each option to
    /// its listed default changes nothing.
    #[test]
    fn listed_defaults_are_the_defaults_in_force() {
        let (mut engine, _events) = Engine::new();
        for spec in option_specs() {
            let value = match spec.kind {
                OptionKind::Spin { default, .. } => default.to_string(),
                OptionKind::Check { default } => default.to_string(),
                OptionKind::Combo { default, .. } => default.to_string(),
                OptionKind::Text { default } => default.to_string(),
                OptionKind::Button => continue,
            };
            engine.set_option(spec.name, &value).unwrap();
            assert_eq!(engine.options(), &Options::default(), "{}", spec.name);
            assert_eq!(engine.variant(), Variant::default(), "{}", spec.name);
        }
    }

    /// A value is checked against its option's own kind and bounds, and a refused value
    /// changes nothing.
    #[test]
    fn each_option_reads_its_own_kind() {
        let (mut engine, _events) = Engine::new();
        engine.set_option("hash", " 2 ").unwrap();
        engine.set_option("MULTIPV", "3").unwrap();
        engine.set_option("Move Overhead", "0").unwrap();
        engine.set_option("Ponder", "TRUE").unwrap();
        engine.set_option("Variant", "english").unwrap();
        let before = engine.options().clone();
        assert_eq!(before.hash_mb, 2);
        assert_eq!(before.multipv, 3);
        assert_eq!(before.move_overhead_ms, 0);
        assert!(before.ponder);
        assert_eq!(engine.variant(), Variant::English);
        for (name, value) in [
            ("Hash", "0"),
            ("Hash", "4097"),
            ("Threads", "two"),
            ("Ponder", "1"),
            ("Variant", "chess"),
            ("EvalFile", "/no/such/file"),
            ("EGTBPath", "/no/such/dir"),
        ] {
            let error = engine.set_option(name, value).unwrap_err();
            assert!(
                matches!(error, EngineError::BadOptionValue { .. }),
                "{name} {value}: {error}"
            );
            assert_eq!(engine.options(), &before, "{name} {value}");
            assert_eq!(engine.variant(), Variant::English);
        }
        assert!(matches!(
            engine.set_option("Hashes", "1"),
            Err(EngineError::UnknownOption(_))
        ));
        engine.set_option("Clear Hash", "").unwrap();
        assert_eq!(
            engine.check_option("ponder", "false").unwrap().name(),
            "Ponder"
        );
    }

    /// A binary weights file (block tables) loads for its board and gives the evaluation it
    /// holds; a damaged one, or one for another board, is refused and changes nothing.
    #[test]
    fn a_binary_weights_file_is_checked_before_it_is_used() {
        let dir = std::env::temp_dir().join(format!("damka-evalfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("international.dkw");
        let mut patterns =
            crate::eval::Patterns::zero(10, crate::eval::weights::INTERNATIONAL.to_text());
        for (i, pair) in patterns.weights.iter_mut().enumerate() {
            *pair = [(i % 97) as i16 - 48, (i % 89) as i16 - 44];
        }
        let bytes = &patterns.to_bytes()[..];
        std::fs::write(&good, bytes).unwrap();
        let truncated = dir.join("truncated.dkw");
        std::fs::write(&truncated, &bytes[..bytes.len() - 100]).unwrap();
        let mut damaged_bytes = bytes.to_vec();
        damaged_bytes[bytes.len() / 2] ^= 0x40;
        let damaged = dir.join("damaged.dkw");
        std::fs::write(&damaged, &damaged_bytes).unwrap();

        let (mut engine, _events) = Engine::new();
        engine.set_option("Variant", "international").unwrap();
        let position = crate::notation::fen::parse_fen::<crate::rules::International>(
            "W:W27,30,33,35,36,37,38,43,45,46,47,48,50:B1,2,3,5,6,10,11,12,13,17,19,23,24",
        )
        .unwrap();
        engine
            .set_position(crate::game::Game::new(position).into())
            .unwrap();
        let set = crate::eval::EvalSet {
            weights: crate::eval::weights::INTERNATIONAL,
            patterns: Some(std::sync::Arc::new(patterns.clone())),
            network: None,
        };
        let expected = set.evaluate(&position);
        let without = crate::eval::EvalSet {
            patterns: None,
            network: None,
            ..set.clone()
        };
        assert_ne!(expected, without.evaluate(&position), "the tables count");
        engine
            .set_option("EvalFile", good.to_str().unwrap())
            .unwrap();
        assert_eq!(engine.evaluate(), expected);
        let before = engine.options().clone();
        for (file, reason) in [(&truncated, "truncated"), (&damaged, "checksum")] {
            let error = engine
                .set_option("EvalFile", file.to_str().unwrap())
                .unwrap_err();
            assert!(error.to_string().contains(reason), "{error}");
            assert_eq!(engine.options(), &before);
        }
        engine.set_option("EvalFile", "").unwrap();
        engine.set_option("Variant", "english").unwrap();
        let error = engine
            .set_option("EvalFile", good.to_str().unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("10x10"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
