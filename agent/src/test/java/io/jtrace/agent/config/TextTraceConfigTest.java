package io.jtrace.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jtrace.protos.TraceConfig;
import org.junit.jupiter.api.Test;

class TextTraceConfigTest {
    /** A config as Perfetto's documentation writes them, with the fields jtrace implements. */
    static final String CONFIG = """
            # comments are fine
            buffers {
              size_kb: 8192
              fill_policy: DISCARD
            }
            buffers: { size_kb: 1024 }
            data_sources {
              config {
                name: "track_event"
                target_buffer: 0
                track_event_config {
                  enabled_categories: "app"
                  enabled_categories: "db*"
                  disabled_categories: "*"
                }
              }
            }
            data_sources { config { name: "jvm.gc" target_buffer: 1 } producer_name_filter: "jvm:1" }
            duration_ms: 10000
            flush_period_ms: 5000
            unique_session_name: "nightly"
            incremental_state_config { clear_period_ms: 2000 }
            builtin_data_sources { snapshot_interval_ms: 30000 }
            """;

    @Test
    void perfettosTextFormatIsRead() {
        TraceConfig c = TextTraceConfig.parse(CONFIG);
        assertEquals(2, c.getBuffersCount());
        assertEquals(TraceConfig.BufferConfig.FillPolicy.DISCARD, c.getBuffers(0).getFillPolicy());
        assertEquals("db*", c.getDataSources(0).getConfig().getTrackEventConfig().getEnabledCategories(1));
        assertEquals(1, c.getDataSources(1).getConfig().getTargetBuffer());
        assertEquals("jvm:1", c.getDataSources(1).getProducerNameFilter(0));
        assertEquals(10000, c.getDurationMs());
        assertEquals("nightly", c.getUniqueSessionName());
        assertEquals(2000, c.getIncrementalStateConfig().getClearPeriodMs());
        assertEquals(30000, c.getBuiltinDataSources().getSnapshotIntervalMs());
    }

    @Test
    void aFieldJtraceDoesNotImplementIsRefusedByItsPath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse(
                CONFIG + "deferred_start: true\ndata_sources { config { name: \"x\" tracing_session_id: 3 } }\n"
                        + "builtin_data_sources { disable_system_info: true }\n"));
        assertEquals("trace config sets fields jtrace does not implement: data_sources[2].config.tracing_session_id, "
                + "deferred_start, builtin_data_sources.disable_system_info", e.getMessage());
    }

    @Test
    void aMissingOrTooSmallBufferIsRefusedBeforeAnythingStarts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse(
                "buffers { size_kb: 1024 }\nbuffers { size_kb: 10 }\ndata_sources { config { name: \"track_event\" } }\n"));
        assertEquals("trace config buffers[1].size_kb is 10: the smallest trace buffer is 64 KiB", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse(
                "buffers { fill_policy: RING_BUFFER }\ndata_sources { config { name: \"track_event\" } }\n"));
        assertEquals("trace config buffers[0] has no size_kb (at least 64)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse(
                "data_sources { config { name: \"track_event\" } }\n"));
        assertEquals("the trace config has no buffers: add at least one `buffers { size_kb: N }`", e.getMessage());
        assertEquals(64, TextTraceConfig.parse("buffers { size_kb: 64 }\n").getBuffers(0).getSizeKb());
    }

    @Test
    void aFieldNotInTraceConfigIsNamedWithItsLineAndColumn() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse(
                "buffers { size_kb: 64 }\ndata_sources {\n  config {\n    name: \"linux.ftrace\"\n    ftrace_config { }\n"
                        + "  }\n}\n"));
        assertEquals("trace config has an unknown field: 'DataSourceConfig.ftrace_config' (line 5, column 5)",
                e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse("foo: 1\nbar: 2\n"));
        assertEquals("trace config has unknown fields: 'TraceConfig.foo' (line 1, column 1), 'TraceConfig.bar' "
                + "(line 2, column 1)", e.getMessage());
    }

    @Test
    void aSyntaxErrorGivesLineAndColumn() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TextTraceConfig.parse("buffers {\n  size_kb 64\n}\n"));
        assertEquals("trace config line 2, column 11: Expected \":\".", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TextTraceConfig.parse("duration_ms: -5"));
    }
}
