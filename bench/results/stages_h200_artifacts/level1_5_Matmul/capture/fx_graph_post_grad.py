class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[4096, 4096]", arg1_1: "f32[4096, 4096]"):
        # File: /work/main/problems/gpu/level1/5_Matmul.py:13 in forward, code: return torch.matmul(A, B)
        mm: "f32[4096, 4096]" = torch.ops.aten.mm.default(arg0_1, arg1_1);  arg0_1 = arg1_1 = None
        return (mm,)
