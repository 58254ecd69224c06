package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.TwoSessionsWorkload;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two track_event sessions at once in a real JVM (JDK 17 and 25), one from the agent's options and one
 * started over JMX with another category filter: each file holds every slice of its own category and
 * none of the others'.
 */
class TwoConcurrentSessionsTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void eachSessionGetsExactlyItsCategories(String jdk) throws Exception {
        Path first = dir.resolve("first.pftrace");
        Path second = dir.resolve("second.pftrace");
        ChildJvm.Result result = ChildJvm.runTraced(ChildJvm.java(jdk),
                "start,name=first,categories=two-a,sources=track_event,file=" + first, first, dir,
                ChildJvm.DEFAULT_JVM_FLAGS, ChildJvm.DEFAULT_TIMEOUT, TwoSessionsWorkload.class.getName(), second.toString());
        assertEquals("", result.stderr());
        long perCategory = result.report().get("SLICES_PER_CATEGORY");

        assertEquals(Map.of("two-a", perCategory), slicesByCategory(first));
        assertEquals(Map.of("two-b", perCategory), slicesByCategory(second));
    }

    private static Map<String, Long> slicesByCategory(Path trace) throws Exception {
        TraceModel model = TraceModel.read(trace);
        assertEquals(List.of(), model.problems, trace.toString());
        return model.slices.stream().filter(s -> s.name().startsWith("two-"))
                .collect(Collectors.groupingBy(s -> String.join(",", s.categories()), Collectors.counting()));
    }
}
