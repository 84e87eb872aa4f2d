package dev.allot.nodeagent.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaSmiParserTest {

    /** Captured from an 8 x H100 node: nvidia-smi --query-gpu=index,name,memory.total,utilization.gpu --format=csv,noheader,nounits */
    private static final String H100_NODE = """
            0, NVIDIA H100 80GB HBM3, 81559, 100
            1, NVIDIA H100 80GB HBM3, 81559, 97
            2, NVIDIA H100 80GB HBM3, 81559, 0
            3, NVIDIA H100 80GB HBM3, 81559, 0
            4, NVIDIA H100 80GB HBM3, 81559, 45
            5, NVIDIA H100 80GB HBM3, 81559, 45
            6, NVIDIA H100 80GB HBM3, 81559, 12
            7, NVIDIA H100 80GB HBM3, 81559, 1
            """;

    @Test
    void givenH100NodeOutput_whenParsed_thenEveryGpuWithModelMemoryAndUtilisation() {
        List<Gpu> gpus = NvidiaSmiParser.parse(H100_NODE);

        assertThat(gpus).hasSize(8);
        assertThat(gpus.get(0)).isEqualTo(new Gpu(0, "NVIDIA H100 80GB HBM3", 81559, 1.0));
        assertThat(gpus.get(6)).isEqualTo(new Gpu(6, "NVIDIA H100 80GB HBM3", 81559, 0.12));
        assertThat(gpus).extracting(Gpu::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void givenUnsupportedUtilisation_whenParsed_thenUtilisationUnknownButGpuKept() {
        List<Gpu> gpus = NvidiaSmiParser.parse("0, Tesla T4, 15360, [N/A]\r\n1, Tesla T4, 15360, [Not Supported]\r\n");

        assertThat(gpus).extracting(Gpu::utilisation).containsExactly(null, null);
        assertThat(gpus).extracting(Gpu::name).containsOnly("Tesla T4");
    }

    @Test
    void givenMeanOverSomeGpus_whenAsked_thenOnlyThoseCount() {
        GpuBackend backend = new GpuBackend() {
            @Override
            public List<Gpu> gpus() {
                return NvidiaSmiParser.parse(H100_NODE);
            }

            @Override
            public String model() {
                return "H100";
            }
        };

        assertThat(backend.meanUtilisation(List.of(0, 1)).getAsDouble()).isEqualTo(0.985, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(new FakeGpuBackend(4).meanUtilisation(List.of(0, 1))).isEmpty();
    }

    @Test
    void givenTruncatedLine_whenParsed_thenRejectedWithTheLine() {
        assertThatThrownBy(() -> NvidiaSmiParser.parse("0, NVIDIA A100"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0, NVIDIA A100");
    }
}
