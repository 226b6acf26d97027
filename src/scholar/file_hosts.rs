//! Which file hosts an open-access download may reach. A copy's address
//! comes from a third party (Unpaywall, OpenAlex) and each host it sends
//! Quire to may redirect anywhere, so a hostile or hijacked entry could
//! point the researcher's machine at services only it can reach (a router's
//! page, a local API) and have the answer kept as the paper's full text.
//! So a download goes over https only, to public addresses only: every
//! hop's address is checked before the request (an address in the URL
//! itself) and as the name is resolved for the connection (the resolver
//! refuses a name with a loopback, private, link-local or other non-public
//! address, so a name cannot resolve one way when checked and another when
//! connected), and a redirect from https to http is refused.
//!
//! `QUIRE_TRUSTED_FILE_HOSTS` names `host:port` pairs exempt from both
//! rules (a repository mirror on the institution's network, the tests'
//! local hosts); nothing else is.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The setting that exempts `host:port` pairs (comma-separated).
pub const TRUSTED_ENV: &str = "QUIRE_TRUSTED_FILE_HOSTS";

/// The rules for file hosts, with the hosts exempt from them.
#[derive(Clone, Debug, Default)]
pub struct FileHosts {
    trusted: Arc<Vec<(String, u16)>>,
}

/// A name refused because it resolves to an address that is not public.
#[derive(Debug, thiserror::Error)]
#[error("{name} resolves to {addr}, a {kind} address")]
pub struct NotPublic {
    pub name: String,
    pub addr: IpAddr,
    pub kind: &'static str,
}

impl FileHosts {
    /// The rules with the pairs `QUIRE_TRUSTED_FILE_HOSTS` names exempt.
    pub fn from_env() -> Self {
        Self::trusting(&std::env::var(TRUSTED_ENV).unwrap_or_default())
    }

    /// The rules with the comma-separated `host:port` pairs in `list` exempt.
    pub fn trusting(list: &str) -> Self {
        let trusted = list
            .split(',')
            .filter_map(|entry| {
                let (host, port) = entry.trim().rsplit_once(':')?;
                let host = host.trim_start_matches('[').trim_end_matches(']');
                Some((host.to_ascii_lowercase(), port.parse().ok()?))
            })
            .collect();
        Self {
            trusted: Arc::new(trusted),
        }
    }

    fn is_trusted(&self, url: &Url) -> bool {
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return false;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.trusted
            .iter()
            .any(|(h, p)| *p == port && h.eq_ignore_ascii_case(host))
    }

    fn trusts_name(&self, name: &str) -> bool {
        self.trusted
            .iter()
            .any(|(h, _)| h.eq_ignore_ascii_case(name))
    }

    /// Why `url` may not be fetched, if it may not: not https, or an
    /// address in it that is not public. A name is checked as it resolves
    /// (see [`Self::resolver`]).
    pub fn check(&self, url: &Url) -> Result<(), String> {
        if self.is_trusted(url) {
            return Ok(());
        }
        let shown = url.host_str().unwrap_or("the address");
        if let Some(ip) = literal_ip(url)
            && let Some(kind) = not_public(ip)
        {
            return Err(format!(
                "{shown} is a {kind} address, which an open-access download never reaches"
            ));
        }
        if url.scheme() != "https" {
            return Err(format!(
                "{shown} is asked over {}, and open-access downloads go over https only",
                url.scheme()
            ));
        }
        Ok(())
    }

    /// Why a redirect from `from` to `to` is not followed, if it is not:
    /// `to` breaks the rules of [`Self::check`], or it drops https.
    pub fn check_redirect(&self, from: &Url, to: &Url) -> Result<(), String> {
        let shown = from.host_str().unwrap_or("the host");
        if from.scheme() == "https" && to.scheme() != "https" && !self.is_trusted(to) {
            return Err(format!(
                "{shown} redirected from https to {} ({}): not followed",
                to.scheme(),
                to.host_str().unwrap_or("?")
            ));
        }
        self.check(to)
            .map_err(|why| format!("{shown} redirected elsewhere: {why}; not followed"))
    }

    /// A resolver for the file hosts' client: a name resolves only when
    /// every address it has is public (or the name is trusted).
    pub fn resolver(&self) -> Arc<dyn Resolve> {
        Arc::new(PublicOnly(self.clone()))
    }
}

/// The IP address a URL names literally, if it does.
fn literal_ip(url: &Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .parse()
        .ok()
}

/// What kind of non-public address `ip` is, or `None` for a public one.
pub fn not_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => not_public_v4(v4),
        IpAddr::V6(v6) => {
            // An IPv4 address written as IPv6 is that address.
            if let Some(v4) = v6.to_ipv4_mapped() {
                return not_public_v4(v4);
            }
            not_public_v6(v6)
        }
    }
}

fn not_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, ..] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (carrier-grade NAT)")
    } else if ip.is_broadcast()
        || ip.is_multicast()
        || a >= 240
        || ip.is_documentation()
        || (a == 198 && (18..20).contains(&b))
    {
        Some("reserved")
    } else {
        None
    }
}

fn not_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments()[0];
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else if first & 0xfe00 == 0xfc00 {
        Some("private (unique local)")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if ip.is_multicast() || first == 0x2001 && ip.segments()[1] == 0x0db8 {
        Some("reserved")
    } else {
        None
    }
}

/// Resolves names for the file hosts' client, refusing any name with an
/// address that is not public.
struct PublicOnly(FileHosts);

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let hosts = self.0.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !hosts.trusts_name(&host)
                && let Some((addr, kind)) = addrs
                    .iter()
                    .find_map(|a| not_public(a.ip()).map(|kind| (a.ip(), kind)))
            {
                return Err(Box::new(NotPublic {
                    name: host,
                    addr,
                    kind,
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The name refused by the resolver behind `e`, if that is why it failed.
pub fn refused_name(e: &reqwest::Error) -> Option<&NotPublic> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(err) = source {
        if let Some(refused) = err.downcast_ref::<NotPublic>() {
            return Some(refused);
        }
        source = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_https_to_public_addresses_is_fetched() {
        let hosts = FileHosts::default();
        assert!(hosts.check(&url("https://europepmc.org/x.pdf")).is_ok());
        assert!(hosts.check(&url("https://93.184.216.34/x.pdf")).is_ok());
        let http = hosts.check(&url("http://europepmc.org/x.pdf")).unwrap_err();
        assert!(http.contains("https only"), "{http}");
        for (address, kind) in [
            ("https://127.0.0.1:8080/", "loopback"),
            ("https://10.1.2.3/", "private"),
            ("https://172.16.0.1/", "private"),
            ("https://192.168.1.1/", "private"),
            ("https://169.254.169.254/latest/meta-data", "link-local"),
            ("https://0.0.0.0/", "unspecified"),
            ("https://100.64.0.1/", "carrier-grade"),
            ("https://[::1]/", "loopback"),
            ("https://[fd00::1]/", "unique local"),
            ("https://[fe80::1]/", "link-local"),
            ("https://[::ffff:127.0.0.1]/", "loopback"),
            ("http://192.168.1.1/", "private"),
        ] {
            let why = hosts.check(&url(address)).unwrap_err();
            assert!(why.contains(kind), "{address}: {why}");
        }
    }

    #[test]
    fn a_redirect_may_not_drop_https_or_leave_the_public_internet() {
        let hosts = FileHosts::default();
        let from = url("https://repo.example.org/x.pdf");
        assert!(
            hosts
                .check_redirect(&from, &url("https://cdn.example.org/x.pdf"))
                .is_ok()
        );
        let down = hosts
            .check_redirect(&from, &url("http://cdn.example.org/x.pdf"))
            .unwrap_err();
        assert!(down.contains("from https to http"), "{down}");
        let inward = hosts
            .check_redirect(&from, &url("https://127.0.0.1:9200/"))
            .unwrap_err();
        assert!(inward.contains("loopback"), "{inward}");
    }

    #[test]
    fn trusted_pairs_are_exempt_and_nothing_else_is() {
        let hosts = FileHosts::trusting("127.0.0.1:8080, [::1]:9000,mirror.lan:80");
        assert!(hosts.check(&url("http://127.0.0.1:8080/x.pdf")).is_ok());
        assert!(hosts.check(&url("http://[::1]:9000/x.pdf")).is_ok());
        assert!(hosts.check(&url("http://mirror.lan/x.pdf")).is_ok());
        assert!(hosts.check(&url("http://127.0.0.1:8081/x.pdf")).is_err());
        assert!(hosts.check(&url("https://127.0.0.1/x.pdf")).is_err());
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused_as_it_resolves() {
        let resolver = FileHosts::default().resolver();
        let Err(refused) = resolver.resolve("localhost".parse().unwrap()).await else {
            panic!("localhost resolved for a file host");
        };
        let refused = refused.downcast::<NotPublic>().unwrap();
        assert_eq!(refused.kind, "loopback");
        let trusted = FileHosts::trusting("localhost:8080").resolver();
        assert!(trusted.resolve("localhost".parse().unwrap()).await.is_ok());
    }
}
