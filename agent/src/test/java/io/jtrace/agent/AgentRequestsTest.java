package io.jtrace.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.agent.control.SessionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentRequestsTest {
    @TempDir
    Path dir;

    private final AgentRequests requests = new AgentRequests();

    @Test
    void optionsFromJmxOrTheCliStartASessionWithoutSayingStart() {
        SessionRequest r = requests.fromOptions("ring,name=x,duration=5s,file=/tmp/a.pftrace");
        assertEquals("x", r.name());
        assertEquals(SessionRequest.Mode.RING, r.mode());
        assertEquals(Path.of("/tmp/a.pftrace"), r.file());
        assertEquals(5000, r.config().getDurationMs());
        assertEquals(SessionRequest.Mode.FILE, requests.fromOptions("").mode());
    }

    @Test
    void aTextConfigRunsAsPerfettoWouldWriteIntoFileStreamsOtherwiseItIsKeptInItsBuffers() {
        String kept = "buffers { size_kb: 1024 } data_sources { config { name: \"jvm.gc\" } } unique_session_name: \"n\"";
        SessionRequest ring = requests.fromConfig(kept, "");
        assertEquals(SessionRequest.Mode.RING, ring.mode());
        assertEquals("n", ring.name());
        assertNull(ring.file());
        SessionRequest streamed = requests.fromConfig(kept + " write_into_file: true output_path: \"/tmp/o.pftrace\"", "");
        assertEquals(SessionRequest.Mode.FILE, streamed.mode());
        assertEquals(Path.of("/tmp/o.pftrace"), streamed.file());
        assertEquals(Path.of("/tmp/given.pftrace"), requests.fromConfig(kept, "/tmp/given.pftrace").file(),
                "the file given wins over output_path");
    }

    @Test
    void aConfigNamingADataSourceTheAgentLacksIsRefusedNamingThoseItHas() {
        String message = assertThrows(IllegalArgumentException.class, () -> requests.fromConfig(
                "buffers { size_kb: 1024 } data_sources { config { name: \"track_evnt\" } }", "")).getMessage();
        assertTrue(message.contains("'track_evnt'") && message.contains("track_event, jvm.gc"), message);
    }

    @Test
    void theConfigOptionReadsATextConfigFile() throws Exception {
        Path config = dir.resolve("c.pbtxt");
        Files.writeString(config, "buffers { size_kb: 2048 }\ndata_sources { config { name: \"track_event\" } }\n");
        SessionRequest r = requests.fromOptions("config=" + config + ",name=cfg,file=/tmp/c.pftrace");
        assertEquals(2048, r.config().getBuffers(0).getSizeKb());
        assertEquals("cfg", r.name());
        assertEquals(Path.of("/tmp/c.pftrace"), r.file());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> requests.fromOptions("config=" + config + ",duration=5s")).getMessage()
                .contains("'duration' cannot go with 'config'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> requests.fromOptions("config=" + dir.resolve("missing.pbtxt"))).getMessage()
                .contains("cannot read"));
        Path withMark = dir.resolve("bom.pbtxt");
        Files.writeString(withMark, "\uFEFFbuffers { size_kb: 512 }\n");
        assertEquals(512, requests.fromOptions("config=" + withMark).config().getBuffers(0).getSizeKb(),
                "a UTF-8 byte order mark is no part of the config");
        Path broken = dir.resolve("broken.pbtxt");
        Files.writeString(broken, "frob: 1\n");
        assertEquals("jtrace option 'config': " + broken + ": trace config has an unknown field: 'TraceConfig.frob' "
                + "(line 1, column 1)", assertThrows(IllegalArgumentException.class,
                () -> requests.fromOptions("config=" + broken)).getMessage());
        Path binary = dir.resolve("bin.pbtxt");
        Files.write(binary, new byte[] {0x0a, (byte) 0xff, (byte) 0xfe, 0x10});
        assertEquals("jtrace option 'config': '" + binary + "' is not UTF-8 text (a trace config in protobuf text "
                + "format is expected)", assertThrows(IllegalArgumentException.class,
                () -> requests.fromOptions("config=" + binary)).getMessage());
    }
}
