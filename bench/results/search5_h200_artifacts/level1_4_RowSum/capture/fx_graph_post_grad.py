class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4096, 16384]"):
        # File: /work/main/problems/gpu/level1/4_RowSum.py:14 in forward, code: return torch.sum(x, dim=self.dim, keepdim=True)
        sum_1: "f32[4096, 1]" = torch.ops.aten.sum.dim_IntList(arg0_1, [1], True);  arg0_1 = None
        return (sum_1,)
