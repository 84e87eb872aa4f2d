package dev.allot.accounting.streams;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.accounting.book.Fact;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FactSerdeTest {

    private final FactSerde serde = new FactSerde();
    private final Fact usage = new Fact(Fact.Kind.USAGE, "c1", "lab/team", 1_000, 2_000, 42.5, true, "job-1",
            "node-1", 4, "usage", 3, 17);

    @Test
    void givenAFact_whenWrittenAndRead_thenTheSameFact() {
        byte[] bytes = serde.serialize("facts", usage);

        assertThat(serde.deserialize("facts", bytes)).isEqualTo(usage);
        assertThat(bytes[0]).as("version").isEqualTo((byte) 2);
    }

    @Test
    void givenAFactWithoutJobOrNode_whenWrittenAndRead_thenTheNullsComeBack() {
        Fact demand = new Fact(Fact.Kind.DEMAND, "c1", "lab/team", 1_000, 2_000, 3, false, null, null, 0,
                "account-demand", 0, 5);

        assertThat(serde.deserialize("facts", serde.serialize("facts", demand))).isEqualTo(demand);
    }

    @Test
    void givenAVersion1Record_whenRead_thenTheSameFact_itsTwoNullByteArraysIgnored() {
        byte[] v2 = serde.serialize("facts", usage);
        // version 1 wrote the same fields, then two null byte arrays (length -1 each)
        byte[] v1 = Arrays.copyOf(v2, v2.length + 8);
        v1[0] = 1;
        ByteBuffer.wrap(v1, v2.length, 8).putInt(-1).putInt(-1);

        assertThat(serde.deserialize("facts", v1)).isEqualTo(usage);
    }

    @Test
    void givenNoValue_whenWrittenOrRead_thenNull() {
        assertThat(serde.serialize("facts", null)).isNull();
        assertThat(serde.deserialize("facts", null)).isNull();
    }
}
