//! Finding and loading librunway.so at run time (`dlopen`), so that a program using this crate
//! needs no rpath, no `LD_LIBRARY_PATH` and no build script of its own.
//!
//! The library is loaded once per process, on first use, from the first of these that exists
//! (the order of the Python package, `librunway`):
//!
//! 1. the path given to [`load_from`] before anything else used the library;
//! 2. `$RUNWAY_LIBRARY`, a path to the library file: when set it must load (an error, not a
//!    fallback, if it does not);
//! 3. beside the executable: `librunway.so.MAJOR`, then `librunway.so` in its folder (a program
//!    shipped with its library);
//! 4. the `make install` prefix known when this crate was built: `$RUNWAY_PREFIX/lib`, or else
//!    the `libdir` of an installed `runway.pc` that `pkg-config` found then (PKG_CONFIG_PATH);
//! 5. the system loader by SONAME, `librunway.so.MAJOR` (LD_LIBRARY_PATH, ld.so.cache, /usr/lib:
//!    a system-wide install such as PREFIX=/usr or /usr/local);
//! 6. the build folder of the repository this crate was built from (`build/librunway.so`).
//!
//! A library whose ABI version is not [`crate::sys::RUNWAY_ABI_VERSION`], or that lacks a
//! function of the header, is refused with the reason, and the search goes on. When nothing
//! loads, the error lists every place tried.

use std::ffi::{c_void, CStr, CString};
use std::os::raw::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::error::{Error, Result, Status};
use crate::sys;

/// Generates `sys`'s function table and its `unsafe fn` wrappers from prototypes written as in
/// an `extern "C"` block.
macro_rules! functions {
    ($( $(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        /// The library's functions, resolved once when it is loaded.
        pub(crate) struct Functions {
            $( pub(crate) $name: unsafe extern "C" fn($($ty),*) $(-> $ret)?, )*
        }

        impl Functions {
            /// Resolves every function in `lib`, or names the first one it lacks.
            pub(crate) fn resolve(lib: &crate::library::Handle) -> std::result::Result<Functions, &'static str> {
                Ok(Functions { $( $name: {
                    let name = concat!(stringify!($name), "\0");
                    let p = lib.raw_symbol(name.as_ptr().cast()).ok_or(stringify!($name))?;
                    // SAFETY: the address is that of the library's function of this name, whose
                    // C signature is the one declared here (tests/header.rs checks the mirror).
                    unsafe { std::mem::transmute::<*mut std::ffi::c_void, unsafe extern "C" fn($($ty),*) $(-> $ret)?>(p) }
                }, )* })
            }
        }

        $(
            $(#[$meta])*
            ///
            /// # Safety
            /// The C function's contract (include/runway.h): valid pointers, strings
            /// NUL-terminated, returned strings freed with `runway_string_free`. Loads the
            /// library on first use and panics when none can be loaded.
            pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                (crate::library::table().$name)($($arg),*)
            }
        )*
    };
}
pub(crate) use functions;

/// A `dlopen` handle, never closed: the library stays loaded for the life of the process.
pub(crate) struct Handle(*mut c_void);

// SAFETY: a dlopen handle may be used from any thread (dlsym is thread-safe).
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

impl Handle {
    /// The address of `name` in this library, or `None`.
    pub(crate) fn raw_symbol(&self, name: *const c_char) -> Option<*mut c_void> {
        // SAFETY: the handle is open and `name` NUL-terminated.
        let p = unsafe { dlsym(self.0, name) };
        (!p.is_null()).then_some(p)
    }
}

/// The loaded library.
pub(crate) struct Library {
    handle: Handle,
    path: PathBuf,
    pub(crate) functions: sys::Functions,
}

impl Library {
    /// The address of `name` in the loaded library, or `None` when it does not export it.
    pub(crate) fn symbol(&self, name: &CStr) -> Option<*mut c_void> {
        self.handle.raw_symbol(name.as_ptr())
    }
}

static LOADED: OnceLock<Library> = OnceLock::new();
/// Held while searching, so that two threads never load two libraries; a failed search is not
/// remembered (a later call searches again).
static SEARCHING: Mutex<()> = Mutex::new(());
static EXPLICIT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// The library's SONAME, `librunway.so.MAJOR`.
pub const SONAME: &str = "librunway.so.0";
const _: () = assert!(sys::RUNWAY_VERSION_MAJOR == 0, "SONAME follows RUNWAY_VERSION_MAJOR");

/// Where the library is looked for, in order: a description and a path (or, for the system
/// loader, a bare file name). [`load`] tries them in this order.
pub fn candidates() -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    if let Some(p) = EXPLICIT.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        found.push(("runway::load_from".to_owned(), p));
    }
    if let Some(p) = std::env::var_os("RUNWAY_LIBRARY").filter(|p| !p.is_empty()) {
        found.push(("$RUNWAY_LIBRARY".to_owned(), PathBuf::from(p)));
    }
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf)) {
        found.push(("beside the executable".to_owned(), dir.join(SONAME)));
        found.push(("beside the executable".to_owned(), dir.join("librunway.so")));
    }
    if let Some(dir) = option_env!("RUNWAY_INSTALLED_LIBDIR").filter(|d| !d.is_empty()) {
        found.push(("the install prefix this crate was built for".to_owned(), Path::new(dir).join(SONAME)));
    }
    found.push(("the system loader".to_owned(), PathBuf::from(SONAME)));
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build/librunway.so");
    found.push(("the repository's build folder".to_owned(), build));
    found
}

fn open(path: &Path) -> std::result::Result<Library, String> {
    let c = CString::new(path.as_os_str().as_bytes()).map_err(|_| "a NUL byte in the path".to_owned())?;
    // SAFETY: dlopen with a NUL-terminated name; running the library's initialisers is what
    // loading it means (librunway's are the Swift runtime's).
    let raw = unsafe { dlopen(c.as_ptr(), RTLD_NOW | RTLD_LOCAL) };
    if raw.is_null() {
        // SAFETY: dlerror returns NULL or a NUL-terminated message, copied at once.
        let why = unsafe { dlerror() };
        let why = if why.is_null() {
            "dlopen failed".into()
        } else {
            unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned()
        };
        return Err(why);
    }
    let handle = Handle(raw);
    let functions = sys::Functions::resolve(&handle).map_err(|name| format!("not librunway: no {name}"))?;
    // SAFETY: runway_abi_version takes no arguments and has no preconditions.
    let abi = unsafe { (functions.runway_abi_version)() };
    if abi != sys::RUNWAY_ABI_VERSION {
        return Err(format!("ABI version {abi}; this crate needs {}", sys::RUNWAY_ABI_VERSION));
    }
    // The file actually loaded (the system loader resolves a bare name).
    let path = loaded_file(&handle, &functions).unwrap_or_else(|| path.to_path_buf());
    Ok(Library { handle, path, functions })
}

/// The file the library was loaded from, by `dladdr` of one of its functions.
fn loaded_file(_handle: &Handle, functions: &sys::Functions) -> Option<PathBuf> {
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let addr = functions.runway_abi_version as *const c_void;
    // SAFETY: dladdr only reads the address; dli_fname is the loader's NUL-terminated string.
    if unsafe { dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes()));
    Some(path.canonicalize().unwrap_or(path))
}

fn search() -> std::result::Result<Library, String> {
    let mut tried = Vec::new();
    for (where_, path) in candidates() {
        let bare = path.components().count() == 1 && !path.is_absolute();
        if !bare && !path.exists() {
            if where_ == "$RUNWAY_LIBRARY" || where_ == "runway::load_from" {
                return Err(format!("{where_} = {}: no such file", path.display()));
            }
            tried.push(format!("  {where_}: {} (not found)", path.display()));
            continue;
        }
        match open(&path) {
            Ok(lib) => return Ok(lib),
            Err(why) if where_ == "$RUNWAY_LIBRARY" || where_ == "runway::load_from" => {
                return Err(format!("{where_} = {}: {why}", path.display()));
            }
            Err(why) => tried.push(format!("  {where_}: {} ({why})", path.display())),
        }
    }
    Err(format!(
        "librunway.so not found: build it (make lib), install it (make install), or set RUNWAY_LIBRARY to its path. Looked in:\n{}",
        tried.join("\n")
    ))
}

/// The library, loading it on first use.
pub(crate) fn loaded() -> Result<&'static Library> {
    if let Some(lib) = LOADED.get() {
        return Ok(lib);
    }
    let _searching = SEARCHING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(lib) = LOADED.get() {
        return Ok(lib);
    }
    let lib = search().map_err(|why| Error::new(Status::Internal, why))?;
    Ok(LOADED.get_or_init(|| lib))
}

/// The function table; panics with the reason when the library cannot be loaded.
#[inline]
pub(crate) fn table() -> &'static sys::Functions {
    if let Some(lib) = LOADED.get() {
        return &lib.functions;
    }
    match loaded() {
        Ok(lib) => &lib.functions,
        Err(e) => panic!("{}", e.message),
    }
}

/// Loads librunway (if not loaded yet) by the search order above and returns the file it
/// came from. Everything else in this crate loads it on first use the same way; call this to
/// fail early, or to show which library a program uses.
///
/// Errors: [`Status::Internal`] with every place tried when none loads.
pub fn load() -> Result<&'static Path> {
    loaded().map(|lib| lib.path.as_path())
}

/// Loads librunway from `path`, ahead of the search order. Must come before anything else
/// uses the library: once one is loaded, this only succeeds when `path` is that same file.
/// A failed `load_from` loads nothing (and a later one may name another path).
///
/// Errors: [`Status::Internal`] when `path` does not load (no fallback to the search order),
/// or when another library is loaded already.
pub fn load_from(path: impl AsRef<Path>) -> Result<&'static Path> {
    let path = path.as_ref().to_path_buf();
    *EXPLICIT.lock().unwrap_or_else(|e| e.into_inner()) = Some(path.clone());
    let result = load();
    if result.is_err() {
        *EXPLICIT.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
    let lib = result?;
    let same = path.canonicalize().map(|p| p == lib).unwrap_or(false);
    if !same {
        return Err(Error::new(
            Status::Internal,
            format!(
                "runway::load_from({}): librunway is already loaded from {}",
                path.display(),
                lib.display()
            ),
        ));
    }
    Ok(lib)
}

/// The file librunway was loaded from, or `None` before it is loaded (this does not load it).
pub fn library_path() -> Option<&'static Path> {
    LOADED.get().map(|lib| lib.path.as_path())
}

#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

const RTLD_NOW: c_int = 2;
const RTLD_LOCAL: c_int = 0;

extern "C" {
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
