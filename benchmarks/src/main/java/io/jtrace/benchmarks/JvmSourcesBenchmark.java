package io.jtrace.benchmarks;

import io.jtrace.agent.jmx.JmxDataSource;
import io.jtrace.agent.memory.MemoryDataSource;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.JvmJmxConfig;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One sample of jvm.memory and of jvm.jmx, as the agent's sampling thread takes it every period: the
 * source made and started through its public API, writing into a real SMB (chunks freed at once). A
 * counter is written only when its value changed, so a sample of a quiet JVM is mostly reading the
 * MXBeans.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JvmSourcesBenchmark {
    /** Three attributes of other kinds than the default's: a composite's key and two plain integers. */
    static final List<String> THREE_ATTRIBUTES = List.of(
            "java.lang:type=Memory/HeapMemoryUsage/used",
            "java.lang:type=Threading/ThreadCount",
            "java.lang:type=ClassLoading/LoadedClassCount");

    @State(Scope.Benchmark)
    public static class Memory {
        PolledSource source;

        @Setup(Level.Trial)
        public void start() throws Exception {
            source = new PolledSource(MemoryDataSource::new, DataSourceConfig.newBuilder().setName(MemoryDataSource.NAME).build());
        }

        @TearDown(Level.Trial)
        public void stop() {
            source.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Jmx {
        /** default: jvm.jmx's defaults (process and system CPU load, open file descriptors); three: {@link #THREE_ATTRIBUTES}. */
        @Param({"default", "three"})
        public String attributes;

        PolledSource source;

        @Setup(Level.Trial)
        public void start() throws Exception {
            JvmJmxConfig.Builder jmx = JvmJmxConfig.newBuilder();
            if (attributes.equals("three")) {
                jmx.addAllAttributes(THREE_ATTRIBUTES);
            }
            source = new PolledSource(JmxDataSource::new,
                    DataSourceConfig.newBuilder().setName(JmxDataSource.NAME).setJvmJmxConfig(jmx).build());
        }

        @TearDown(Level.Trial)
        public void stop() {
            source.close();
        }
    }

    @Benchmark
    public void memorySample(Memory memory) {
        memory.source.sample();
    }

    @Benchmark
    public void jmxSample(Jmx jmx) {
        jmx.source.sample();
    }
}
