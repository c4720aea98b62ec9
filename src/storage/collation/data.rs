//! The data ICU4X builds collators from. The CLI has it compiled in. The
//! page's wasm has none: a script that names a collation other than simple
//! finds no data ([`wanted`] then says so), the worker fetches
//! `collation.postcard` (a blob made by `mqlplay collation-data`, [`export`]),
//! hands it to [`load`] and runs the script again. The blob holds exactly
//! what building each offered locale's collator reads from the compiled
//! data, under the requests the collator makes, so both build the same
//! collators.
use crate::collation::Collator;
use icu_collator::options::CollatorOptions;
use icu_collator::CollatorPreferences;
use icu_provider::DataError;
use icu_provider_blob::BlobDataProvider;
use std::cell::{Cell, RefCell};

thread_local! {
    static BLOB: RefCell<Option<BlobDataProvider>> = const { RefCell::new(None) };
    static WANTED: Cell<bool> = const { Cell::new(false) };
}

/// Read the collation data blob; later collators are built from it.
pub fn load(blob: Vec<u8>) -> Result<(), DataError> {
    let provider = BlobDataProvider::try_new_from_blob(blob.into_boxed_slice())?;
    BLOB.with(|b| *b.borrow_mut() = Some(provider));
    Ok(())
}

/// Whether a collator was asked for without data since the last call (the
/// page then loads the blob and runs again).
pub fn wanted() -> bool {
    WANTED.with(|w| w.replace(false))
}

/// A collator from the blob.
pub fn from_blob(
    blob: &BlobDataProvider,
    prefs: CollatorPreferences,
    options: CollatorOptions,
) -> Result<Collator, DataError> {
    icu_collator::Collator::try_new_with_buffer_provider(blob, prefs, options)
        .map(|c| Collator::Loaded(Box::new(c)))
}

/// The collator for `prefs` and `options`: from the loaded blob if any, else
/// (natively) from the compiled data.
pub fn collator(
    prefs: CollatorPreferences,
    options: CollatorOptions,
) -> Result<Collator, DataError> {
    if let Some(c) = BLOB.with(|b| b.borrow().as_ref().map(|p| from_blob(p, prefs, options))) {
        return c;
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        icu_collator::Collator::try_new(prefs, options).map(Collator::Compiled)
    }
    #[cfg(target_arch = "wasm32")]
    {
        WANTED.with(|w| w.set(true));
        Err(DataError::custom("collation data not loaded"))
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use export::export;

#[cfg(not(target_arch = "wasm32"))]
mod export {
    use icu_collator::provider::*;
    use icu_normalizer::provider::{NormalizerNfdDataV1, NormalizerNfdTablesV1};
    use icu_provider::dynutil::UpcastDataPayload;
    use icu_provider::export::{DataExporter, ExportMarker};
    use icu_provider::prelude::*;
    use icu_provider_blob::export::BlobExporter;
    use std::cell::RefCell;

    /// The compiled data, remembering every payload it hands out and the
    /// request it answered.
    #[derive(Default)]
    struct Recorder {
        seen: RefCell<
            Vec<(
                DataMarkerInfo,
                DataIdentifierCow<'static>,
                DataPayload<ExportMarker>,
            )>,
        >,
    }

    macro_rules! record {
        ($($marker:ty => $baked:path),* $(,)?) => {
            $(impl DataProvider<$marker> for Recorder {
                fn load(&self, req: DataRequest) -> Result<DataResponse<$marker>, DataError> {
                    let res = DataProvider::<$marker>::load(&$baked, req)?;
                    self.seen.borrow_mut().push((
                        <$marker>::INFO,
                        req.id.into_owned(),
                        ExportMarker::upcast(res.payload.clone()),
                    ));
                    Ok(res)
                }
            })*
            const MARKERS: &[DataMarkerInfo] = &[$(<$marker>::INFO),*];
        };
    }

    record! {
        CollationSpecialPrimariesV1 => icu_collator::provider::Baked,
        CollationRootV1 => icu_collator::provider::Baked,
        CollationTailoringV1 => icu_collator::provider::Baked,
        CollationDiacriticsV1 => icu_collator::provider::Baked,
        CollationJamoV1 => icu_collator::provider::Baked,
        CollationMetadataV1 => icu_collator::provider::Baked,
        CollationReorderingV1 => icu_collator::provider::Baked,
        NormalizerNfdDataV1 => icu_normalizer::provider::Baked,
        NormalizerNfdTablesV1 => icu_normalizer::provider::Baked,
    }

    /// The blob the page loads: what building the collator of every offered
    /// locale reads (options choose no data).
    pub fn export() -> Result<Vec<u8>, DataError> {
        let recorder = Recorder::default();
        for known in super::super::locales::OFFERED {
            let prefs = icu_collator::CollatorPreferences::from(&known.tag());
            icu_collator::Collator::try_new_unstable(&recorder, prefs, Default::default())?;
        }
        let mut blob = Vec::new();
        {
            let mut exporter = BlobExporter::new_with_sink(Box::new(&mut blob));
            let mut seen = recorder.seen.into_inner();
            seen.sort_by(|a, b| (a.0.id.name(), &a.1).cmp(&(b.0.id.name(), &b.1)));
            seen.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
            for (marker, id, payload) in &seen {
                exporter.put_payload(*marker, id.as_borrowed(), payload)?;
            }
            for marker in MARKERS {
                exporter.flush(*marker, Default::default())?;
            }
            exporter.close()?;
        }
        Ok(blob)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use icu_collator::options::{AlternateHandling, CaseLevel, Strength};
    use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};

    /// Every string in the collation case files.
    fn case_strings() -> Vec<String> {
        let mut out = vec![String::new()];
        for text in [
            include_str!("../../../tests/cases/collation/errors.txt"),
            include_str!("../../../tests/cases/collation/manual.txt"),
            include_str!("../../../tests/cases/collation/options.txt"),
        ] {
            for (i, part) in text.split('"').enumerate() {
                if i % 2 == 1 && part.len() < 40 && !part.contains('\n') {
                    out.push(part.to_string());
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    fn options(strength: Strength, shifted: bool, case_level: bool) -> CollatorOptions {
        let mut o = CollatorOptions::default();
        o.strength = Some(strength);
        o.case_level = Some(if case_level {
            CaseLevel::On
        } else {
            CaseLevel::Off
        });
        o.alternate_handling = Some(if shifted {
            AlternateHandling::Shifted
        } else {
            AlternateHandling::NonIgnorable
        });
        o
    }

    fn key(c: &Collator, s: &str) -> Vec<u8> {
        let mut k = Vec::new();
        let Ok(()) = match c {
            Collator::Compiled(c) => c.write_sort_key_to(s, &mut k),
            Collator::Loaded(c) => c.as_borrowed().write_sort_key_to(s, &mut k),
        };
        k
    }

    /// The page's collators (from the blob) order the case files' strings as
    /// the CLI's (compiled data) do, for every offered locale.
    #[test]
    fn the_blob_builds_the_compiled_collators() {
        let blob =
            BlobDataProvider::try_new_from_blob(export().expect("exports").into_boxed_slice())
                .expect("reads");
        let strings = case_strings();
        assert!(strings.len() > 30, "{strings:?}");
        let mut checked = 0;
        for known in super::super::locales::OFFERED {
            for (strength, shifted, case_level, upper, numeric) in [
                (Strength::Tertiary, false, false, false, false),
                (Strength::Primary, false, true, false, false),
                (Strength::Secondary, true, false, false, true),
                (Strength::Quaternary, true, false, true, false),
                (Strength::Identical, false, true, true, true),
            ] {
                let mut prefs = CollatorPreferences::from(&known.tag());
                prefs.case_first = Some(if upper {
                    CollationCaseFirst::Upper
                } else {
                    CollationCaseFirst::False
                });
                prefs.numeric_ordering = Some(if numeric {
                    CollationNumericOrdering::True
                } else {
                    CollationNumericOrdering::False
                });
                let o = options(strength, shifted, case_level);
                let compiled = icu_collator::Collator::try_new(prefs, o)
                    .map(Collator::Compiled)
                    .expect("compiled data");
                let loaded = from_blob(&blob, prefs, o).expect("blob data");
                for s in &strings {
                    assert_eq!(key(&compiled, s), key(&loaded, s), "{} {s:?}", known.id);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn without_data_a_collator_is_wanted_then_built_from_the_blob() {
        assert!(!wanted());
        load(export().expect("exports")).expect("loads");
        let prefs = CollatorPreferences::from(&icu_locale_core::locale!("de-u-co-phonebk"));
        let c = collator(prefs, CollatorOptions::default()).expect("builds");
        assert!(matches!(c, Collator::Loaded(_)));
        assert!(!wanted());
        BLOB.with(|b| *b.borrow_mut() = None);
    }
}
