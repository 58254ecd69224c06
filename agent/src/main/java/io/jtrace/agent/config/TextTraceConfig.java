package io.jtrace.agent.config;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.jtrace.protos.TraceConfig;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Perfetto's {@code TraceConfig} in protobuf text format, as {@code perfetto --txt -c} takes it. A field
 * jtrace does not implement is refused by name (a config that asks for something jtrace would not do
 * must not look as if it worked), and a syntax error gives its line and column.
 */
public final class TextTraceConfig {
    /**
     * The fields jtrace's service and data sources honour, as paths of proto field names (repeated
     * fields without their index). Everything else Perfetto's TraceConfig has is refused.
     */
    static final Set<String> IMPLEMENTED = Set.of(
            "buffers", "buffers.size_kb", "buffers.fill_policy",
            "data_sources", "data_sources.config", "data_sources.config.name", "data_sources.config.target_buffer",
            "data_sources.config.buffer_exhausted_policy",
            "data_sources.config.track_event_config",
            "data_sources.config.track_event_config.enabled_categories",
            "data_sources.config.track_event_config.disabled_categories",
            "data_sources.config.jvm_threads_config", "data_sources.config.jvm_threads_config.sample_period_ms",
            "data_sources.config.jvm_memory_config", "data_sources.config.jvm_memory_config.poll_period_ms",
            "data_sources.config.jvm_jmx_config", "data_sources.config.jvm_jmx_config.attributes",
            "data_sources.config.jvm_jmx_config.poll_period_ms",
            "data_sources.producer_name_filter",
            "duration_ms", "write_into_file", "file_write_period_ms", "max_file_size_bytes", "output_path",
            "flush_period_ms", "flush_timeout_ms", "data_source_stop_timeout_ms", "unique_session_name",
            "incremental_state_config", "incremental_state_config.clear_period_ms",
            "builtin_data_sources", "builtin_data_sources.snapshot_interval_ms");

    /** How protobuf's parser opens its message for unknown fields, followed by one "line:column:\tfield" line each. */
    private static final String UNKNOWN_FIELDS = "Input contains unknown fields and/or extensions:";

    private TextTraceConfig() {}

    /** Protobuf's multi-line message for unknown fields, as one line naming each field and where it is. */
    private static String unknownFields(String message) {
        List<String> fields = new ArrayList<>();
        for (String line : message.substring(UNKNOWN_FIELDS.length()).trim().split("\n")) {
            String[] parts = line.trim().split("\t", 2);
            String where = parts[0].replaceAll(":$", "");
            String name = parts.length > 1 ? messageAndField(parts[1]) : line.trim();
            String[] lineColumn = where.split(":");
            fields.add("'" + name + "'" + (lineColumn.length == 2
                    ? " (line " + lineColumn[0] + ", column " + lineColumn[1] + ")" : ""));
        }
        return "trace config has " + (fields.size() == 1 ? "an unknown field: " : "unknown fields: ")
                + String.join(", ", fields);
    }

    /** "perfetto.protos.DataSourceConfig.ftrace_config" as "DataSourceConfig.ftrace_config". */
    private static String messageAndField(String fullName) {
        int field = fullName.lastIndexOf('.');
        int message = field > 0 ? fullName.lastIndexOf('.', field - 1) : -1;
        return fullName.substring(message + 1);
    }

    /** The text of the config file {@code file}; throws {@link IllegalArgumentException} saying why it cannot be had. */
    public static String readText(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            // A byte order mark, as some editors save UTF-8, is no part of the config.
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("'" + file + "' is not UTF-8 text (a trace config in protobuf text "
                    + "format is expected)");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read '" + file + "': " + e);
        }
    }

    /**
     * The smallest trace buffer a user may ask for, in KiB (text configs and the agent's {@code buffer=}):
     * a smaller one holds a handful of chunks, and a trace of almost nothing.
     */
    public static final int MIN_BUFFER_KB = 64;

    /** Parses {@code text}; throws {@link IllegalArgumentException} naming the line and column or the field. */
    public static TraceConfig parse(String text) {
        TraceConfig.Builder builder = TraceConfig.newBuilder();
        try {
            // Unknown fields are an error (the default): allowing them would make protobuf log a warning
            // through java.util.logging, on the host's stderr, and the field would be lost silently.
            TextFormat.Parser.newBuilder().build().merge(text, builder);
        } catch (TextFormat.ParseException e) {
            String message = e.getMessage();
            String prefix = e.getLine() + ":" + e.getColumn() + ": ";
            if (message.startsWith(prefix)) {
                message = message.substring(prefix.length());
            }
            if (message.startsWith(UNKNOWN_FIELDS)) {
                throw new IllegalArgumentException(unknownFields(message));
            }
            throw new IllegalArgumentException("trace config line " + e.getLine() + ", column " + e.getColumn() + ": "
                    + message);
        }
        TraceConfig config = builder.build();
        List<String> unsupported = new ArrayList<>();
        collectUnsupported(config, "", "", unsupported);
        if (!unsupported.isEmpty()) {
            throw new IllegalArgumentException("trace config sets " + (unsupported.size() == 1 ? "a field" : "fields")
                    + " jtrace does not implement: " + String.join(", ", unsupported));
        }
        if (config.getBuffersCount() == 0) {
            throw new IllegalArgumentException("the trace config has no buffers: add at least one `buffers { size_kb: N }`");
        }
        for (int i = 0; i < config.getBuffersCount(); i++) {
            if (!config.getBuffers(i).hasSizeKb()) {
                throw new IllegalArgumentException("trace config buffers[" + i + "] has no size_kb (at least "
                        + MIN_BUFFER_KB + ")");
            }
            long sizeKb = Integer.toUnsignedLong(config.getBuffers(i).getSizeKb()); // a uint32
            if (sizeKb < MIN_BUFFER_KB) {
                throw new IllegalArgumentException("trace config buffers[" + i + "].size_kb is " + sizeKb
                        + ": the smallest trace buffer is " + MIN_BUFFER_KB + " KiB");
            }
        }
        return config;
    }

    private static void collectUnsupported(Message message, String path, String shown, List<String> out) {
        for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
            FieldDescriptor field = e.getKey();
            String fieldPath = path.isEmpty() ? field.getName() : path + "." + field.getName();
            String fieldShown = shown.isEmpty() ? field.getName() : shown + "." + field.getName();
            if (!IMPLEMENTED.contains(fieldPath)) {
                out.add(fieldShown);
                continue;
            }
            if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
                continue;
            }
            if (field.isRepeated()) {
                List<?> items = (List<?>) e.getValue();
                for (int i = 0; i < items.size(); i++) {
                    collectUnsupported((Message) items.get(i), fieldPath, fieldShown + "[" + i + "]", out);
                }
            } else {
                collectUnsupported((Message) e.getValue(), fieldPath, fieldShown, out);
            }
        }
    }
}
