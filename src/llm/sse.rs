//! A server-sent-events decoder that does not care how the bytes were chunked:
//! lines are only decoded once complete, so a UTF-8 character or a `data:` line
//! split across reads comes out whole. Comment lines (`: ping`) are skipped;
//! multi-line data is joined with `\n`; an event still pending at end of stream
//! is delivered by [`SseDecoder::finish`].

/// One event: its `event:` name (if any) and its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    pending: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed the next bytes; returns the events they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line[..line.len() - 1]).into_owned();
            self.line(line.strip_suffix('\r').unwrap_or(&line), &mut out);
        }
        out
    }

    /// End of stream: deliver what is left (a last line without newline, an event
    /// without its blank line).
    pub fn finish(mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.line(line.strip_suffix('\r').unwrap_or(&line), &mut out);
        }
        self.dispatch(&mut out);
        out
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_owned()),
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.data.is_empty() {
            self.event = None;
            return;
        }
        out.push(SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data).join("\n"),
        });
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const STREAM: &str = ": OPENROUTER PROCESSING\n\nevent: message_start\ndata: {\"a\":\"héllo 🌍\"}\n\ndata: line one\r\ndata: line two\r\n\r\ndata: : keepalive\n\ndata: [DONE]\n\ndata: tail without blank line";

    fn decode_in_chunks(bytes: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut events = Vec::new();
        let mut start = 0;
        for &cut in cuts {
            let cut = cut.clamp(start, bytes.len());
            events.extend(decoder.feed(&bytes[start..cut]));
            start = cut;
        }
        events.extend(decoder.feed(&bytes[start..]));
        events.extend(decoder.finish());
        events
    }

    #[test]
    fn decodes_events_comments_multiline_data_and_a_tail() {
        let events = decode_in_chunks(STREAM.as_bytes(), &[]);
        let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(
            data,
            [
                "{\"a\":\"héllo 🌍\"}",
                "line one\nline two",
                ": keepalive",
                "[DONE]",
                "tail without blank line"
            ]
        );
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[1].event, None);
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_events(mut cuts in prop::collection::vec(0usize..200, 0..40)) {
            cuts.sort_unstable();
            let whole = decode_in_chunks(STREAM.as_bytes(), &[]);
            prop_assert_eq!(decode_in_chunks(STREAM.as_bytes(), &cuts), whole);
        }
    }
}
