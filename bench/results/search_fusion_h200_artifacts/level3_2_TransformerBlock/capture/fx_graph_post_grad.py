class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[8, 512, 768]", arg1_1: "f32[768]", arg2_1: "f32[768]", arg3_1: "f32[768, 768]", arg4_1: "f32[768]", arg5_1: "f32[768, 768]", arg6_1: "f32[768]", arg7_1: "f32[768, 768]", arg8_1: "f32[768]", arg9_1: "f32[768, 768]", arg10_1: "f32[768]", arg11_1: "f32[768]", arg12_1: "f32[768]", arg13_1: "f32[3072, 768]", arg14_1: "f32[3072]", arg15_1: "f32[768, 3072]", arg16_1: "f32[768]"):
        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:29 in forward, code: h = self.ln1(x)
        var_mean = torch.ops.aten.var_mean.correction(arg0_1, [2], correction = 0, keepdim = True)
        getitem: "f32[8, 512, 1]" = var_mean[0]
        getitem_1: "f32[8, 512, 1]" = var_mean[1];  var_mean = None
        sub: "f32[8, 512, 768]" = torch.ops.aten.sub.Tensor(arg0_1, getitem_1);  getitem_1 = None
        add: "f32[8, 512, 1]" = torch.ops.aten.add.Tensor(getitem, 1e-05);  getitem = None
        rsqrt: "f32[8, 512, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        mul: "f32[8, 512, 768]" = torch.ops.aten.mul.Tensor(sub, rsqrt);  sub = rsqrt = None
        mul_1: "f32[8, 512, 768]" = torch.ops.aten.mul.Tensor(mul, arg1_1);  mul = arg1_1 = None
        add_1: "f32[8, 512, 768]" = torch.ops.aten.add.Tensor(mul_1, arg2_1);  mul_1 = arg2_1 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:30 in forward, code: q = self.q_proj(h).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        view: "f32[4096, 768]" = torch.ops.aten.reshape.default(add_1, [4096, 768])
        permute: "f32[768, 768]" = torch.ops.aten.permute.default(arg3_1, [1, 0]);  arg3_1 = None
        mm_default_5: "f32[4096, 768]" = torch.ops.aten.mm.default(view, permute);  view = permute = None
        add_tensor_5: "f32[4096, 768]" = torch.ops.aten.add.Tensor(arg4_1, mm_default_5);  arg4_1 = mm_default_5 = None
        view_1: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(add_tensor_5, [8, 512, 768]);  add_tensor_5 = None
        view_2: "f32[8, 512, 12, 64]" = torch.ops.aten.reshape.default(view_1, [8, 512, 12, 64]);  view_1 = None
        permute_1: "f32[8, 12, 512, 64]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:33 in forward, code: att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        expand: "f32[8, 12, 512, 64]" = torch.ops.aten.expand.default(permute_1, [8, 12, 512, 64]);  permute_1 = None
        clone: "f32[8, 12, 512, 64]" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format);  expand = None
        view_9: "f32[96, 512, 64]" = torch.ops.aten.reshape.default(clone, [96, 512, 64]);  clone = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:31 in forward, code: k = self.k_proj(h).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        view_3: "f32[4096, 768]" = torch.ops.aten.reshape.default(add_1, [4096, 768])
        permute_2: "f32[768, 768]" = torch.ops.aten.permute.default(arg5_1, [1, 0]);  arg5_1 = None
        mm_default_4: "f32[4096, 768]" = torch.ops.aten.mm.default(view_3, permute_2);  view_3 = permute_2 = None
        add_tensor_4: "f32[4096, 768]" = torch.ops.aten.add.Tensor(arg6_1, mm_default_4);  arg6_1 = mm_default_4 = None
        view_4: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(add_tensor_4, [8, 512, 768]);  add_tensor_4 = None
        view_5: "f32[8, 512, 12, 64]" = torch.ops.aten.reshape.default(view_4, [8, 512, 12, 64]);  view_4 = None
        permute_3: "f32[8, 12, 512, 64]" = torch.ops.aten.permute.default(view_5, [0, 2, 1, 3]);  view_5 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:33 in forward, code: att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        permute_6: "f32[8, 12, 64, 512]" = torch.ops.aten.permute.default(permute_3, [0, 1, 3, 2]);  permute_3 = None
        expand_1: "f32[8, 12, 64, 512]" = torch.ops.aten.expand.default(permute_6, [8, 12, 64, 512]);  permute_6 = None
        clone_1: "f32[8, 12, 64, 512]" = torch.ops.aten.clone.default(expand_1, memory_format = torch.contiguous_format);  expand_1 = None
        view_10: "f32[96, 64, 512]" = torch.ops.aten.reshape.default(clone_1, [96, 64, 512]);  clone_1 = None
        bmm: "f32[96, 512, 512]" = torch.ops.aten.bmm.default(view_9, view_10);  view_9 = view_10 = None
        view_11: "f32[8, 12, 512, 512]" = torch.ops.aten.reshape.default(bmm, [8, 12, 512, 512]);  bmm = None

        # No stacktrace found for following nodes
        mul_tensor: "f32[8, 12, 512, 512]" = torch.ops.aten.mul.Tensor(view_11, 1);  view_11 = None
        amax_default: "f32[8, 12, 512, 1]" = torch.ops.aten.amax.default(mul_tensor, [-1], True)
        sub_tensor: "f32[8, 12, 512, 512]" = torch.ops.aten.sub.Tensor(mul_tensor, amax_default);  mul_tensor = amax_default = None
        div_tensor: "f32[8, 12, 512, 512]" = torch.ops.aten.div.Tensor(sub_tensor, 8.0);  sub_tensor = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:34 in forward, code: att = torch.softmax(att, dim=-1)
        exp: "f32[8, 12, 512, 512]" = torch.ops.aten.exp.default(div_tensor);  div_tensor = None
        sum_1: "f32[8, 12, 512, 1]" = torch.ops.aten.sum.dim_IntList(exp, [-1], True)
        div_1: "f32[8, 12, 512, 512]" = torch.ops.aten.div.Tensor(exp, sum_1);  exp = sum_1 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:35 in forward, code: y = torch.matmul(att, v).transpose(1, 2).reshape(B, T, C)
        expand_2: "f32[8, 12, 512, 512]" = torch.ops.aten.expand.default(div_1, [8, 12, 512, 512]);  div_1 = None
        view_12: "f32[96, 512, 512]" = torch.ops.aten.reshape.default(expand_2, [96, 512, 512]);  expand_2 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:32 in forward, code: v = self.v_proj(h).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        view_6: "f32[4096, 768]" = torch.ops.aten.reshape.default(add_1, [4096, 768]);  add_1 = None
        permute_4: "f32[768, 768]" = torch.ops.aten.permute.default(arg7_1, [1, 0]);  arg7_1 = None
        mm_default_3: "f32[4096, 768]" = torch.ops.aten.mm.default(view_6, permute_4);  view_6 = permute_4 = None
        add_tensor_3: "f32[4096, 768]" = torch.ops.aten.add.Tensor(arg8_1, mm_default_3);  arg8_1 = mm_default_3 = None
        view_7: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(add_tensor_3, [8, 512, 768]);  add_tensor_3 = None
        view_8: "f32[8, 512, 12, 64]" = torch.ops.aten.reshape.default(view_7, [8, 512, 12, 64]);  view_7 = None
        permute_5: "f32[8, 12, 512, 64]" = torch.ops.aten.permute.default(view_8, [0, 2, 1, 3]);  view_8 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:35 in forward, code: y = torch.matmul(att, v).transpose(1, 2).reshape(B, T, C)
        expand_3: "f32[8, 12, 512, 64]" = torch.ops.aten.expand.default(permute_5, [8, 12, 512, 64]);  permute_5 = None
        clone_2: "f32[8, 12, 512, 64]" = torch.ops.aten.clone.default(expand_3, memory_format = torch.contiguous_format);  expand_3 = None
        view_13: "f32[96, 512, 64]" = torch.ops.aten.reshape.default(clone_2, [96, 512, 64]);  clone_2 = None
        bmm_1: "f32[96, 512, 64]" = torch.ops.aten.bmm.default(view_12, view_13);  view_12 = view_13 = None
        view_14: "f32[8, 12, 512, 64]" = torch.ops.aten.reshape.default(bmm_1, [8, 12, 512, 64]);  bmm_1 = None
        permute_7: "f32[8, 512, 12, 64]" = torch.ops.aten.permute.default(view_14, [0, 2, 1, 3]);  view_14 = None
        clone_3: "f32[8, 512, 12, 64]" = torch.ops.aten.clone.default(permute_7, memory_format = torch.contiguous_format);  permute_7 = None
        view_15: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(clone_3, [8, 512, 768]);  clone_3 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:36 in forward, code: x = x + self.out_proj(y)
        view_16: "f32[4096, 768]" = torch.ops.aten.reshape.default(view_15, [4096, 768]);  view_15 = None
        permute_8: "f32[768, 768]" = torch.ops.aten.permute.default(arg9_1, [1, 0]);  arg9_1 = None
        mm_default_2: "f32[4096, 768]" = torch.ops.aten.mm.default(view_16, permute_8);  view_16 = permute_8 = None
        add_tensor_2: "f32[4096, 768]" = torch.ops.aten.add.Tensor(arg10_1, mm_default_2);  arg10_1 = mm_default_2 = None
        view_17: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(add_tensor_2, [8, 512, 768]);  add_tensor_2 = None
        add_2: "f32[8, 512, 768]" = torch.ops.aten.add.Tensor(arg0_1, view_17);  arg0_1 = view_17 = None

        # File: /work/main/problems/gpu/level3/2_TransformerBlock.py:37 in forward, code: x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        var_mean_1 = torch.ops.aten.var_mean.correction(add_2, [2], correction = 0, keepdim = True)
        getitem_2: "f32[8, 512, 1]" = var_mean_1[0]
        getitem_3: "f32[8, 512, 1]" = var_mean_1[1];  var_mean_1 = None
        sub_2: "f32[8, 512, 768]" = torch.ops.aten.sub.Tensor(add_2, getitem_3);  getitem_3 = None
        add_3: "f32[8, 512, 1]" = torch.ops.aten.add.Tensor(getitem_2, 1e-05);  getitem_2 = None
        rsqrt_1: "f32[8, 512, 1]" = torch.ops.aten.rsqrt.default(add_3);  add_3 = None
        mul_2: "f32[8, 512, 768]" = torch.ops.aten.mul.Tensor(sub_2, rsqrt_1);  sub_2 = rsqrt_1 = None
        mul_3: "f32[8, 512, 768]" = torch.ops.aten.mul.Tensor(mul_2, arg11_1);  mul_2 = arg11_1 = None
        add_4: "f32[8, 512, 768]" = torch.ops.aten.add.Tensor(mul_3, arg12_1);  mul_3 = arg12_1 = None
        view_18: "f32[4096, 768]" = torch.ops.aten.reshape.default(add_4, [4096, 768]);  add_4 = None
        permute_9: "f32[768, 3072]" = torch.ops.aten.permute.default(arg13_1, [1, 0]);  arg13_1 = None
        mm_default_1: "f32[4096, 3072]" = torch.ops.aten.mm.default(view_18, permute_9);  view_18 = permute_9 = None
        add_tensor_1: "f32[4096, 3072]" = torch.ops.aten.add.Tensor(arg14_1, mm_default_1);  arg14_1 = mm_default_1 = None
        view_19: "f32[8, 512, 3072]" = torch.ops.aten.reshape.default(add_tensor_1, [8, 512, 3072]);  add_tensor_1 = None
        mul_4: "f32[8, 512, 3072]" = torch.ops.aten.mul.Tensor(view_19, 0.5)
        mul_5: "f32[8, 512, 3072]" = torch.ops.aten.mul.Tensor(view_19, 0.7071067811865476);  view_19 = None
        erf: "f32[8, 512, 3072]" = torch.ops.aten.erf.default(mul_5);  mul_5 = None
        add_5: "f32[8, 512, 3072]" = torch.ops.aten.add.Tensor(erf, 1);  erf = None
        mul_6: "f32[8, 512, 3072]" = torch.ops.aten.mul.Tensor(mul_4, add_5);  mul_4 = add_5 = None
        view_20: "f32[4096, 3072]" = torch.ops.aten.reshape.default(mul_6, [4096, 3072]);  mul_6 = None
        permute_10: "f32[3072, 768]" = torch.ops.aten.permute.default(arg15_1, [1, 0]);  arg15_1 = None
        mm_default: "f32[4096, 768]" = torch.ops.aten.mm.default(view_20, permute_10);  view_20 = permute_10 = None
        add_tensor: "f32[4096, 768]" = torch.ops.aten.add.Tensor(arg16_1, mm_default);  arg16_1 = mm_default = None
        view_21: "f32[8, 512, 768]" = torch.ops.aten.reshape.default(add_tensor, [8, 512, 768]);  add_tensor = None
        add_6: "f32[8, 512, 768]" = torch.ops.aten.add.Tensor(add_2, view_21);  add_2 = view_21 = None
        return (add_6,)
