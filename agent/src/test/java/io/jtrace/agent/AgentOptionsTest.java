package io.jtrace.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TraceConfig;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
    @Test
    void noOptionsMeansRegisterOnlyWithDefaults() {
        AgentOptions o = AgentOptions.parse(null);
        assertFalse(o.start());
        assertEquals(8L * 1024 * 1024, o.bufferBytes());
        assertEquals(List.of("track_event", "jvm.gc", "jvm.threads", "jvm.memory", "jvm.jmx"), o.sources());
        assertEquals("warn", o.logLevel());
        assertEquals(100, o.threadsPeriodMillis());
        assertEquals(1000, o.memoryPeriodMillis());
        assertEquals(1000, o.jmxPeriodMillis());
        assertEquals(List.of("java.lang:type=OperatingSystem/ProcessCpuLoad", "java.lang:type=OperatingSystem/SystemCpuLoad",
                "java.lang:type=OperatingSystem/OpenFileDescriptorCount"), o.jmxAttributes());
        assertFalse(AgentOptions.parse("").start());
    }

    @Test
    void aStreamedSessionsBufferDefaultsToAQuarterOfARingSessions() {
        assertEquals(8L * 1024 * 1024, AgentOptions.parse("start").bufferBytes());
        assertEquals(32L * 1024 * 1024, AgentOptions.parse("start,ring").bufferBytes());
        assertEquals(16L * 1024 * 1024, AgentOptions.parse("start,buffer=16m").bufferBytes());
        assertEquals(4L * 1024 * 1024, AgentOptions.parse("start,ring,buffer=4m").bufferBytes());
    }

    @Test
    void everyOptionIsParsed() {
        AgentOptions o = AgentOptions.parse("start,duration=2m,file=/tmp/x.pftrace,buffer=8m,sources=jvm.gc,"
                + "categories=app+db*,log=DEBUG");
        assertTrue(o.start());
        assertEquals(120_000, o.durationMillis());
        assertEquals(Path.of("/tmp/x.pftrace"), o.file());
        assertEquals(8L * 1024 * 1024, o.bufferBytes());
        assertEquals(List.of("jvm.gc"), o.sources());
        assertEquals(List.of("app", "db*"), o.categories());
        assertEquals("debug", o.logLevel());
    }

    @Test
    void durationsTakeEveryUnit() {
        assertEquals(250, AgentOptions.parseDuration("250ms"));
        assertEquals(30_000, AgentOptions.parseDuration("30s"));
        assertEquals(3_600_000, AgentOptions.parseDuration("1h"));
    }

    @Test
    void sizesTakeEveryUnit() {
        assertEquals(64 * 1024, AgentOptions.parseSize("64k"));
        assertEquals(1024L * 1024 * 1024, AgentOptions.parseSize("1g"));
        assertEquals(100_000, AgentOptions.parseSize("100000"));
    }

    /**
     * A value too large for what it becomes (a trace config's uint32 milliseconds or kilobytes, a period)
     * is refused naming the option, not turned into an overflow that stops the agent without a word.
     */
    @Test
    void valuesTooLargeForTheTraceConfigAreErrorsNamingTheOption() {
        assertMessageNames("duration", "start,duration=9999999999999h");
        assertMessageNames("duration", "start,duration=4294968s");
        assertMessageNames("buffer", "start,buffer=99999999999999999g");
        assertMessageNames("buffer", "start,buffer=4194304g");
        assertMessageNames("threads_period", "start,threads_period=600h");
        assertEquals(AgentOptions.MAX_DURATION_MS, AgentOptions.parseDuration("4294967295ms"));
    }

    /** Durations past 2^31 ms (about 24.8 days) reach the trace config whole, as the uint32 they are there. */
    @Test
    void aDurationPastTwoToTheThirtyOneMillisecondsReachesTheConfigWhole() {
        AgentOptions o = AgentOptions.parse("start,duration=720h");
        io.jtrace.protos.TraceConfig config = OptionsTraceConfig.of(o, o.bufferBytes());
        assertEquals(720L * 3_600_000, Integer.toUnsignedLong(config.getDurationMs()));
    }

    @Test
    void unknownKeyIsAnErrorNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AgentOptions.parse("start,frobnicate=3"));
        assertTrue(e.getMessage().contains("'frobnicate'"), e.getMessage());
    }

    @Test
    void badValuesAreErrorsNamingTheOption() {
        assertMessageNames("duration", "start,duration=30");
        assertMessageNames("duration", "start,duration=-5s");
        assertMessageNames("duration", "start,duration=abc");
        assertMessageNames("buffer", "start,buffer=1k");
        assertMessageNames("buffer", "start,buffer=lots");
        assertEquals("jtrace option 'name' is given twice",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("start,name=x,name=y")).getMessage());
        assertMessageNames("ring", "start,ring,ring");
        assertEquals("jtrace option 'buffer' is not a size: '1t' (bytes, or a number with k, m or g, as in 64m)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("start,buffer=1t")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("start,ring,name"))
                .getMessage().contains("quote the options"), "a value jcmd split off is explained");
        assertMessageNames("sources", "start,sources=track_event+nope");
        assertMessageNames("log", "start,log=loud");
        assertMessageNames("file", "start,file=");
        assertMessageNames("start", "start=yes");
    }

    @Test
    void durationOrFileWithoutStartIsAnError() {
        assertMessageNames("start", "duration=10s");
        assertMessageNames("start", "file=a.pftrace");
    }

    @Test
    void traceConfigCarriesBufferDurationSourcesAndCategories() {
        TraceConfig c = AgentRequests.traceConfig(AgentOptions.parse("start,duration=5s,buffer=1m,categories=app"));
        assertEquals(1, c.getBuffersCount());
        assertEquals(1024, c.getBuffers(0).getSizeKb());
        assertEquals(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER, c.getBuffers(0).getFillPolicy());
        assertEquals(5000, c.getDurationMs());
        assertEquals(5, c.getDataSourcesCount());
        assertEquals("track_event", c.getDataSources(0).getConfig().getName());
        assertEquals(List.of("app"), c.getDataSources(0).getConfig().getTrackEventConfig().getEnabledCategoriesList());
        assertEquals("jvm.gc", c.getDataSources(1).getConfig().getName());
        assertFalse(c.getDataSources(1).getConfig().hasTrackEventConfig());
        assertEquals("jvm.threads", c.getDataSources(2).getConfig().getName());
        assertEquals("jvm.memory", c.getDataSources(3).getConfig().getName());
        assertEquals("jvm.jmx", c.getDataSources(4).getConfig().getName());
    }

    @Test
    void jvmSourceOptionsReachTheirConfigs() {
        TraceConfig c = AgentRequests.traceConfig(AgentOptions.parse("start,sources=jvm.threads+jvm.memory+jvm.jmx,"
                + "threads_period=20ms,memory_period=2s,jmx_period=250ms,"
                + "jmx=java.lang:type=MemoryPool;name=*/Usage/used+java.lang:type=Threading/ThreadCount"));
        assertEquals(20, c.getDataSources(0).getConfig().getJvmThreadsConfig().getSamplePeriodMs());
        assertEquals(2000, c.getDataSources(1).getConfig().getJvmMemoryConfig().getPollPeriodMs());
        assertEquals(250, c.getDataSources(2).getConfig().getJvmJmxConfig().getPollPeriodMs());
        assertEquals(List.of("java.lang:type=MemoryPool,name=*/Usage/used", "java.lang:type=Threading/ThreadCount"),
                c.getDataSources(2).getConfig().getJvmJmxConfig().getAttributesList());
    }

    @Test
    void badJvmSourceOptionsNameWhatIsWrong() {
        assertMessageNames("threads_period", "start,threads_period=5ms");
        assertMessageNames("memory_period", "start,memory_period=fast");
        assertMessageNames("jmx_period", "start,jmx_period=0s");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> AgentOptions.parse("start,jmx=java.lang:type=Memory"));
        assertTrue(e.getMessage().contains("java.lang:type=Memory") && e.getMessage().contains("no attribute"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("start,jmx=:::/X"));
        assertTrue(e.getMessage().contains(":::/X"), e.getMessage());
    }

    @Test
    void theBufferNeverTakesMoreThanAnEighthOfTheHeap() {
        assertEquals(32L << 20, AgentRequests.bufferBytes(32L << 20, true, 1L << 30));
        assertEquals(8L << 20, AgentRequests.bufferBytes(32L << 20, true, 64L << 20));
        assertEquals(64 * 1024, AgentRequests.bufferBytes(1L << 20, false, 100_000));
    }

    @Test
    void noDurationMeansUntilExit() {
        assertEquals(0, AgentRequests.traceConfig(AgentOptions.parse("start")).getDurationMs());
        assertNull(AgentOptions.parse("start").file());
    }

    private static void assertMessageNames(String option, String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(text));
        assertTrue(e.getMessage().contains("'" + option + "'"), () -> text + " -> " + e.getMessage());
    }
}
